import Foundation
import NotiPlayTestSupport
import Testing

@testable import NotiPlayResampler

/// The conversions the issue names, and a few more ratios (large phase counts, integer ratios).
let conversions: [(Int, Int)] = [(44100, 48000), (48000, 44100), (8000, 48000), (22050, 44100), (11025, 48000), (48000, 8000)]

/// The whole stream through `resampler` in chunks of `chunk` frames (a cycle of sizes), then the flush.
func run(_ resampler: Resampler, _ input: [Float], chunks: [Int] = [100_000]) -> [Float] {
    let channels = resampler.channelCount
    var output: [Float] = []
    var scratch = [Float](repeating: 0, count: resampler.maximumOutputFrames(forInputFrames: 100_000) * channels)
    var at = 0
    var k = 0
    input.withUnsafeBufferPointer { all in
        while at < input.count / channels {
            let n = min(chunks[k % chunks.count], input.count / channels - at)
            k += 1
            let written = scratch.withUnsafeMutableBufferPointer {
                resampler.process(UnsafeBufferPointer(rebasing: all[(at * channels)..<((at + n) * channels)]), into: $0)
            }
            output += scratch.prefix(written * channels)
            at += n
        }
    }
    let written = scratch.withUnsafeMutableBufferPointer { resampler.flush(into: $0) }
    output += scratch.prefix(written * channels)
    return output
}

func resample(_ input: [Float], channels: Int = 1, _ from: Int, _ to: Int, quality: Resampler.Quality = .high) throws -> [Float] {
    run(try #require(try Resampler.conversion(from: from, to: to, channelCount: channels, quality: quality)), input)
}

/// A sine of `frequency` Hz at `rate`, `amplitude` peak, `frames` long, in channel `channel` of `channels`.
func sine(_ frequency: Double, rate: Int, frames: Int, amplitude: Double = 0.891_250_938, channels: Int = 1, phase: Double = 0) -> [Float] {
    var out = [Float](repeating: 0, count: frames * channels)
    for n in 0..<frames {
        for c in 0..<channels {
            out[n * channels + c] = Float(amplitude * sin(2 * .pi * frequency * Double(n) / Double(rate) + phase + Double(c)))
        }
    }
    return out
}

/// The least-squares fit of a·cos + b·sin + c at `frequency` (cycles per sample) to `y`: the
/// fitted amplitude, and the RMS of what the fit leaves (noise, distortion, images, aliases).
func sineFit(_ y: ArraySlice<Float>, frequency: Double) -> (amplitude: Double, residualRMS: Double) {
    let w = 2 * Double.pi * frequency
    var m = [[Double]](repeating: [0, 0, 0], count: 3)
    var v = [0.0, 0.0, 0.0]
    var basis = [0.0, 0.0, 1.0]
    for (k, value) in y.enumerated() {
        basis[0] = cos(w * Double(k))
        basis[1] = sin(w * Double(k))
        for i in 0..<3 {
            v[i] += basis[i] * Double(value)
            for j in 0..<3 { m[i][j] += basis[i] * basis[j] }
        }
    }
    // Gaussian elimination on the 3×3 normal equations.
    for i in 0..<3 {
        for r in (i + 1)..<3 {
            let f = m[r][i] / m[i][i]
            for j in i..<3 { m[r][j] -= f * m[i][j] }
            v[r] -= f * v[i]
        }
    }
    var x = [0.0, 0.0, 0.0]
    for i in stride(from: 2, through: 0, by: -1) {
        x[i] = (v[i] - (i + 1..<3).reduce(0) { $0 + m[i][$1] * x[$1] }) / m[i][i]
    }
    var residual = 0.0
    for (k, value) in y.enumerated() {
        let e = Double(value) - (x[0] * cos(w * Double(k)) + x[1] * sin(w * Double(k)) + x[2])
        residual += e * e
    }
    return ((x[0] * x[0] + x[1] * x[1]).squareRoot(), (residual / Double(y.count)).squareRoot())
}

func dB(_ x: Double) -> Double { 20 * log10(x) }

/// RMS of a − b over the shorter, in dB relative to full scale (RMS 1).
func differenceDB(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
    let n = min(a.count, b.count)
    var sum = 0.0
    for (x, y) in zip(a.prefix(n), b.prefix(n)) { sum += Double(x - y) * Double(x - y) }
    return dB((sum / Double(n)).squareRoot())
}

@Suite struct ResamplerTests {
    /// Conversions of the same rates share one filter table (designed once per process), whatever
    /// their channels; another quality is another table. The two-stage upsampler shares both.
    @Test func conversionsOfTheSameRatesShareOneFilterDesign() throws {
        let stereo = try #require(try Resampler.conversion(from: 44100, to: 48000, channelCount: 2))
        let mono = try #require(try Resampler.conversion(from: 44100, to: 48000, channelCount: 1))
        let low = try #require(try Resampler.conversion(from: 44100, to: 48000, channelCount: 2, quality: .low))
        #expect(stereo.design === mono.design && stereo.coefficients == mono.coefficients)
        #expect(stereo.design !== low.design)
        let first = try #require(try Resampler.conversion(from: 8000, to: 48000, channelCount: 2))
        let second = try #require(try Resampler.conversion(from: 8000, to: 48000, channelCount: 2))
        #expect(first.design === second.design && first.next?.design === second.next?.design)
    }

    /// Chunks of any size (1 frame, primes, larger than the internal block) give the same samples
    /// as one call, bit for bit, and the same length.
    @Test(arguments: conversions)
    func chunkedEqualsWhole(from: Int, to: Int) throws {
        for channels in [1, 2, 3] {
            let input = sine(997, rate: from, frames: 9000, channels: channels)
            let whole = try resample(input, channels: channels, from, to)
            let make = { try #require(try Resampler.conversion(from: from, to: to, channelCount: channels)) }
            for chunks in [[1], [7, 1, 130, 3], [1500, 2049], [0, 5]] {
                let chunked = run(try make(), input, chunks: chunks)
                #expect(chunked == whole, "\(from)→\(to), \(channels) ch, chunks \(chunks)")
            }
        }
    }

    /// round(frames × out / in) frames, whatever the length (including 0 and 1).
    @Test(arguments: conversions)
    func lengthIsTheRoundedRatio(from: Int, to: Int) throws {
        for frames in [0, 1, 2, 3, 17, 146, 147, 160, 999, 4410, 44101] {
            let output = try resample([Float](repeating: 0.25, count: frames * 2), channels: 2, from, to)
            let expected = Int((Double(frames) * Double(to) / Double(from)).rounded())
            #expect(output.count == expected * 2, "\(from)→\(to), \(frames) frames")
        }
    }

    /// A constant stays that constant (each phase's taps sum to 1), away from the two ends where
    /// the filter sees the silence before and after the stream.
    @Test(arguments: conversions)
    func dcStaysDC(from: Int, to: Int) throws {
        let resampler = try #require(try Resampler.conversion(from: from, to: to, channelCount: 1))
        let edge = resampler.latencyFrames * to / from + 2
        let output = run(resampler, [Float](repeating: 0.75, count: from / 2))
        let inner = output.dropFirst(edge).dropLast(edge)
        #expect(inner.count > 100)
        let worst = inner.map { abs(Double($0) - 0.75) }.max()!
        #expect(worst < 1e-6, "\(from)→\(to): \(worst)")
    }

    /// A −1 dBFS 1 kHz sine comes out at 1 kHz at the new rate, at the same level (within
    /// 0.0001 dB), and what is not that sine (THD+N) is below −120 dB.
    @Test(arguments: conversions)
    func sineKeepsFrequencyAndLevel(from: Int, to: Int) throws {
        let amplitude = 0.891_250_938  // −1 dBFS
        let output = try resample(sine(1000, rate: from, frames: from, amplitude: amplitude), from, to)
        let middle = output.dropFirst(to / 4).dropLast(to / 4)
        let fit = sineFit(middle, frequency: 1000 / Double(to))
        #expect(abs(dB(fit.amplitude / amplitude)) < 1e-4, "\(from)→\(to): level \(dB(fit.amplitude / amplitude)) dB")
        #expect(dB(fit.residualRMS / (amplitude / 2.0.squareRoot())) < -120, "\(from)→\(to): THD+N \(dB(fit.residualRMS / (amplitude / 2.0.squareRoot()))) dB")
        // And at another frequency the fit would be poor: the frequency is right.
        #expect(sineFit(middle, frequency: 1001 / Double(to)).residualRMS > 0.1)
    }

    /// Equal rates are not converted: `conversion` gives nil, and the caller keeps the samples.
    @Test func sameRateIsNoConversion() throws {
        #expect(try Resampler.conversion(from: 48000, to: 48000, channelCount: 2) == nil)
        #expect(throws: Resampler.SetupError.invalidRate(0)) { try Resampler.conversion(from: 0, to: 0, channelCount: 2) }
        #expect(throws: Resampler.SetupError.invalidChannelCount(0)) { try Resampler.conversion(from: 44100, to: 48000, channelCount: 0) }
        #expect(throws: Resampler.SetupError.unsupportedRatio(from: 8000, to: 576_000)) {
            try Resampler.conversion(from: 8000, to: 576_000, channelCount: 1)
        }
        #expect(try Resampler.conversion(from: 192_000, to: 8000, channelCount: 1) != nil)
    }

    /// NaN and infinities enter as silence: the output stays finite and, once the filter has
    /// passed them, is again what the clean signal gives.
    @Test func nonFiniteInputDoesNotPoisonTheState() throws {
        var input = sine(440, rate: 44100, frames: 20000, channels: 2)
        let clean = try resample(input, channels: 2, 44100, 48000)
        input[2000] = .nan
        input[2001] = .infinity
        input[5001] = -.infinity
        let output = try resample(input, channels: 2, 44100, 48000)
        #expect(output.allSatisfy { $0.isFinite })
        #expect(output.count == clean.count)
        #expect(Array(output.suffix(20000)) == Array(clean.suffix(20000)))
    }

    /// Finite samples far beyond full scale (a float file of 3.4e38s) cannot overflow the
    /// filter's sums to infinity, in one stage or two.
    @Test(arguments: [(44100, 48000), (48000, 44100), (8000, 48000)])
    func hugeFiniteInputStaysFinite(from: Int, to: Int) throws {
        let input = (0..<4000).map { $0 % 7 < 3 ? Float.greatestFiniteMagnitude : -Float.greatestFiniteMagnitude }
        let output = try resample(input, channels: 1, from, to)
        #expect(!output.isEmpty && output.allSatisfy { $0.isFinite }, "\(from)→\(to)")
    }

    /// The Swift SIMD loops (any processor) and the AVX2 + FMA kernels give the same output
    /// within float rounding (−130 dB), mono and stereo; chunking does not change either.
    @Test(.enabled(if: Resampler.hasFMA, "the processor has no AVX2 + FMA"), arguments: conversions)
    func portableAndFMAKernelsAgree(from: Int, to: Int) throws {
        for channels in [1, 2, 3] {
            let input = sine(997, rate: from, frames: 9000, channels: channels)
            let make = { (fma: Bool) in
                try Resampler(inputRate: from, outputRate: to, channelCount: channels, quality: .high, useFMA: fma)
            }
            let portable = run(try make(false), input)
            #expect(run(try make(false), input, chunks: [7, 1, 130, 3]) == portable)
            let fused = run(try make(true), input)
            #expect(portable.count == fused.count)
            #expect(differenceDB(portable[...], fused[...]) < -130, "\(from)→\(to), \(channels) channels")
        }
    }

    /// Ratios with too many phases to tabulate (44100 → 47999: 47999 phases) interpolate between
    /// 1024 tabulated ones; that costs less than −120 dB against the exact phases.
    @Test func interpolatedPhasesMatchExactOnes() throws {
        let input = sine(1000, rate: 44100, frames: 44100) + sine(15000, rate: 44100, frames: 44100, amplitude: 0.3)
        let exact = run(try Resampler(inputRate: 44100, outputRate: 48000, channelCount: 1, quality: .high), input)
        let interpolated = run(
            try Resampler(inputRate: 44100, outputRate: 48000, channelCount: 1, quality: .high, forceInterpolatedPhases: true), input)
        #expect(!interpolated.isEmpty && interpolated.count == exact.count)
        #expect(differenceDB(exact[...], interpolated[...]) < -120)
        let odd = try resample(sine(1000, rate: 44100, frames: 44100), 44100, 47999)
        #expect(odd.count == 47999)
        let fit = sineFit(odd.dropFirst(12000).dropLast(12000), frequency: 1000 / 47999.0)
        #expect(dB(fit.residualRMS / (fit.amplitude / 2.0.squareRoot())) < -120)
    }
}

/// Against libsoxr's very-high-quality recipe, on signals where both are flat: below 0.55 × the
/// lower Nyquist. Above it soxr VHQ rolls off on purpose (SOXR_ROLLOFF_SMALL: −0.0001 dB at 0.7,
/// −0.0056 dB at 0.9 × Nyquist for 44.1 ↔ 48 kHz), which alone is a −85 dB difference at 18 kHz;
/// ours stays within ±0.00001 dB to 0.9, which `matchesTheExactSineAcrossThePassband` checks
/// against the mathematical signal instead.
@Suite struct SoxrComparisonTests {
    /// Both resamplers compensate their delay; this checks that: the peak of an impulse's
    /// response lands at the same output frame in both, so no shift is needed to compare them.
    @Test(arguments: conversions)
    func impulseResponsesPeakAtTheSameFrame(from: Int, to: Int) throws {
        var impulse = [Float](repeating: 0, count: from / 10)
        impulse[from / 20] = 1
        let ours = try resample(impulse, from, to)
        let soxr = Soxr.resample(impulse, channels: 1, from: from, to: to)
        #expect(ours.count == soxr.count)
        let peak = { (x: [Float]) in x.indices.max { abs(x[$0]) < abs(x[$1]) }! }
        #expect(peak(ours) == peak(soxr), "\(from)→\(to)")
    }

    /// A −1 dBFS sine, a chord and a sweep (20 Hz to 0.55 × the lower Nyquist), stereo: our
    /// output and soxr VHQ's differ by less than −100 dB RMS relative to full scale.
    @Test(arguments: conversions)
    func matchesSoxrVeryHighQuality(from: Int, to: Int) throws {
        let frames = from
        let top = 0.55 * Double(min(from, to)) / 2
        var sweep = [Float](repeating: 0, count: frames * 2)
        var chord = [Float](repeating: 0, count: frames * 2)
        for n in 0..<frames {
            let t = Double(n) / Double(from)
            // Linear sweep with 50 ms raised-cosine fades, so that its ends add no wideband click.
            let fade = min(1, min(t, 1 - t) / 0.05)
            let envelope = 0.5 - 0.5 * cos(.pi * fade)
            let phase = 2 * Double.pi * (20 * t + (top - 20) * t * t / 2)
            sweep[2 * n] = Float(0.9 * envelope * sin(phase))
            sweep[2 * n + 1] = Float(0.9 * envelope * cos(phase))
            let tones = [440.0, 1234.5, 0.8 * top].map { 0.3 * sin(2 * .pi * $0 * t) }
            chord[2 * n] = Float(envelope * tones.reduce(0, +))
            chord[2 * n + 1] = Float(envelope * (tones[0] - tones[1]))
        }
        let signals = [("sine", sine(1000, rate: from, frames: frames, channels: 2)), ("chord", chord), ("sweep", sweep)]
        for (name, input) in signals {
            let ours = try resample(input, channels: 2, from, to)
            let soxr = Soxr.resample(input, channels: 2, from: from, to: to)
            #expect(ours.count == soxr.count)
            // The sine starts abruptly (a click is wideband): compare it away from its ends.
            let skip = name == "sine" ? to / 10 * 2 : 0
            let difference = differenceDB(ours.dropFirst(skip).dropLast(skip), soxr.dropFirst(skip).dropLast(skip))
            #expect(difference < -100, "\(from)→\(to) \(name): \(difference) dB")
        }
    }

    /// Across the whole passband (to 0.9 × the lower Nyquist), the output is the mathematical
    /// sine at the new rate, sampled at the same instants (no delay, no phase error): the RMS
    /// difference is below −120 dB of full scale.
    @Test(arguments: conversions)
    func matchesTheExactSineAcrossThePassband(from: Int, to: Int) throws {
        let nyquist = Double(min(from, to)) / 2
        for fraction in [0.05, 0.3, 0.6, 0.75, 0.9] {
            let frequency = (fraction * nyquist).rounded()
            let input = sine(frequency, rate: from, frames: from / 2, amplitude: 0.5)
            let output = try resample(input, from, to)
            let exact = sine(frequency, rate: to, frames: to / 2, amplitude: 0.5)
            let middle = (to / 8)..<(3 * to / 8)
            let difference = differenceDB(output[middle], exact[middle])
            #expect(difference < -120, "\(from)→\(to) at \(frequency) Hz: \(difference) dB")
        }
    }
}
