#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CResamplerKernels
import Synchronization

/// Sample-rate conversion for noti-play: a polyphase windowed-sinc FIR (Kaiser window), designed
/// once at setup, run in chunks of any size with its state carried between calls.
///
/// Why this design (measured in Benchmarks/, see README.md "Resampling"): a FIR with exact
/// rational phases has no interpolation error and no FFT block latency, its cost per output
/// sample is one dot product per channel (AVX2 + FMA where the processor has it), and it is small
/// enough to read in one sitting. The transition band ends at the lower Nyquist, so a halfband
/// first stage (what makes multistage designs cheap) cannot be used for 44.1 ↔ 48 kHz; only
/// upsampling by 4 or more runs in two stages (see `next`). Its delay is compensated: output
/// frame n is the band-limited input at time n × inRate / outRate, as libsoxr's output is, so a
/// resampled sound starts where the source starts.
///
/// Conventions (one place each):
/// - Equal rates are not converted at all: `Resampler.conversion(from:to:…)` returns nil, and
///   the caller passes the samples through bit for bit.
/// - Output length: a stream of N input frames gives round(N × outRate / inRate) output frames
///   once `flush` has run, whatever the chunking.
/// - Non-finite input samples enter the filter as 0, so that one NaN cannot poison the history,
///   and finite ones beyond ±2¹⁰⁰ (no audio comes near; full scale is 1) as ±2¹⁰⁰, so that no sum
///   of the filter's taps overflows to infinity.
public final class Resampler {
    /// How hard the filter works. `high` (the default, what `noti-play convert` uses unless asked)
    /// keeps aliasing and images below −120 dB and the passband flat to 0.9 × the lower Nyquist.
    public enum Quality: Sendable, CaseIterable {
        /// Stopband −70 dB, passband to 0.8 × Nyquist: about a quarter of `high`'s taps.
        case low
        /// Stopband −100 dB, passband to 0.9 × Nyquist.
        case medium
        /// Stopband −125 dB (designed; measured below −120 dB), passband to 0.9 × Nyquist.
        case high

        /// Kaiser design target in dB and passband edge as a fraction of the lower Nyquist.
        var design: (attenuation: Double, passbandEdge: Double) {
            switch self {
            case .low: (70, 0.8)
            case .medium: (100, 0.9)
            case .high: (125, 0.9)
            }
        }
    }

    /// Why a conversion cannot be set up; `description` is one line for a user.
    public enum SetupError: Error, Equatable, CustomStringConvertible {
        case invalidRate(Int)
        case invalidChannelCount(Int)
        /// Beyond 32:1 down or 1:64 up: the filter (its length grows with the down ratio) and its
        /// table would take tens of megabytes.
        case unsupportedRatio(from: Int, to: Int)
        /// The filter table would be larger than the caller allows (a ratio far down with no
        /// small terms: 1,411,199 → 44,100 Hz takes 1,025 phases of 4,800 taps, 20 MB).
        case filterTooLarge(from: Int, to: Int, bytes: Int)

        public var description: String {
            switch self {
            case .invalidRate(let rate): "cannot resample at \(rate) Hz (rates from 1 Hz to 1 GHz)"
            case .invalidChannelCount(let count): "cannot resample \(count) channels (1 to 64)"
            case .unsupportedRatio(let from, let to): "cannot resample from \(from) Hz to \(to) Hz (at most 32 times down or 64 times up)"
            case .filterTooLarge(let from, let to, let bytes):
                "cannot resample from \(from) Hz to \(to) Hz here: its filter would take \((bytes + 524_287) / 1_048_576) MB"
            }
        }
    }

    public let inputRate: Int
    public let outputRate: Int
    public let channelCount: Int
    public let quality: Quality

    /// Upsampling by 4 or more runs in two stages: this filter doubles the rate (the steep one,
    /// at the input's Nyquist), then `next` takes 2 × in to out with a short filter, since all
    /// it must remove are the images above 1.5 × in. 8 → 48 kHz: 168 + 24 taps at 8 and 16 kHz
    /// instead of 168 at 48 kHz, about twice as fast; measured −132 dB images instead of −135.
    let next: Resampler?
    /// The first stage's output, the second's input: room for one block.
    let middle: UnsafeMutableBufferPointer<Float>

    /// This stage's filter, shared by every conversion of these rates: its shape and coefficients.
    let design: FilterDesign
    // This stage's ratio in lowest terms: `up` output frames per `down` input frames.
    var up: Int { design.shape.up }
    var down: Int { design.shape.down }
    /// Taps per phase (a multiple of 8, for the SIMD loop); the filter spans `taps` input frames.
    var taps: Int { design.shape.taps }
    /// Phases stored: `up` when exact, `interpolatedPhases + 1` when the ratio's `up` is too large
    /// to tabulate (then each output blends the two nearest phases).
    var exactPhases: Bool { design.shape.exactPhases }
    /// phaseCount × taps coefficients, phase-major; each phase is reversed so that a forward dot
    /// product with the history gives the output.
    var coefficients: UnsafeMutablePointer<Float> { design.coefficients }
    /// The AVX2 + FMA kernels (CResamplerKernels) rather than the Swift SIMD loops.
    let useFMA: Bool

    /// Per channel, `capacity` frames of input; `history[c * capacity + j]` is input frame
    /// `bufferStart + j`. It starts with `taps / 2 - 1` zeros: the silence before the stream.
    let history: UnsafeMutablePointer<Float>
    let capacity: Int
    /// Input frames copied in per block; the history keeps `taps` + this.
    static let blockFrames = 1024
    var bufferStart: Int  // absolute input frame index of history[0]
    var bufferEnd: Int  // one past the last input frame held (zeros past the stream at flush)
    /// The next output frame: its position is inputIndex + phase / up input frames.
    var inputIndex = 0
    var phase = 0
    var inputFrames = 0
    var outputFrames = 0
    var flushed = false

    /// The largest `up` tabulated exactly (all phases stored); beyond it, interpolated phases.
    /// 11025 → 48000 needs 640 phases; 44100 → 48000 160.
    static let maximumExactPhases = 1024
    static let interpolatedPhases = 1024

    /// A converter from `inputRate` to `outputRate`, or nil when they are equal: then nothing is
    /// converted and the samples pass through bit for bit. This is the one place that decides it.
    /// - Parameters:
    ///   - inputRate: The source's frames per second.
    ///   - outputRate: The frames per second wanted.
    ///   - channelCount: Interleaved channels in and out (1 to 64).
    ///   - quality: The filter's design; `.high` unless cost matters more than −120 dB.
    ///   - maximumTableBytes: The largest filter table to design (a player bounds what a hostile
    ///     rate may cost it); larger throws `.filterTooLarge` before anything is designed.
    public static func conversion(
        from inputRate: Int, to outputRate: Int, channelCount: Int, quality: Quality = .high, maximumTableBytes: Int = .max
    ) throws(SetupError) -> Resampler? {
        if inputRate == outputRate {
            guard (1...1_000_000_000).contains(inputRate) else { throw .invalidRate(inputRate) }
            guard (1...64).contains(channelCount) else { throw .invalidChannelCount(channelCount) }
            return nil
        }
        return try Resampler(
            inputRate: inputRate, outputRate: outputRate, channelCount: channelCount, quality: quality, maximumTableBytes: maximumTableBytes)
    }

    /// Callers use `conversion(from:to:…)`; the tests also choose the kernels and phase tables.
    /// - Parameter band: this stage's passband end and stopband start in Hz, for the second
    ///   stage of an upsampling; nil for the conversion's own (see `Quality`).
    init(
        inputRate: Int, outputRate: Int, channelCount: Int, quality: Quality, forceInterpolatedPhases: Bool = false,
        useFMA: Bool = Resampler.hasFMA, band: (passband: Double, stopband: Double)? = nil, maximumTableBytes: Int = .max
    ) throws(SetupError) {
        self.useFMA = useFMA
        for rate in [inputRate, outputRate] where !(1...1_000_000_000).contains(rate) { throw .invalidRate(rate) }
        guard (1...64).contains(channelCount) else { throw .invalidChannelCount(channelCount) }
        guard inputRate <= 32 * outputRate && outputRate <= 64 * inputRate else {
            throw .unsupportedRatio(from: inputRate, to: outputRate)
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channelCount = channelCount
        self.quality = quality
        let (target, edge) = quality.design
        // Kaiser's estimate runs short for short filters (the second stage's 16 taps measured
        // −122 dB for a −125 dB design): 10 dB more there costs 8 taps.
        let attenuation = band == nil ? target : target + 10
        let stageOutputRate: Int
        if band == nil && outputRate >= 4 * inputRate {
            stageOutputRate = 2 * inputRate
            next = try Resampler(
                inputRate: stageOutputRate, outputRate: outputRate, channelCount: channelCount, quality: quality,
                forceInterpolatedPhases: forceInterpolatedPhases, useFMA: useFMA,
                band: (edge * Double(inputRate) / 2, 1.5 * Double(inputRate)), maximumTableBytes: maximumTableBytes)
        } else {
            stageOutputRate = outputRate
            next = nil
        }
        let key = FilterDesign.Key(
            inputRate: inputRate, outputRate: stageOutputRate, attenuation: attenuation, edge: edge,
            band: band.map { [$0.passband, $0.stopband] }, forceInterpolatedPhases: forceInterpolatedPhases)
        let bytes = FilterDesign.Shape(key).byteCount
        guard bytes <= maximumTableBytes else { throw .filterTooLarge(from: inputRate, to: outputRate, bytes: bytes) }
        let design = FilterDesign.shared(key)
        self.design = design
        let (taps, half) = (design.shape.taps, design.shape.taps / 2)

        capacity = taps + Self.blockFrames + 8
        history = .allocate(capacity: capacity * channelCount)
        history.initialize(repeating: 0, count: capacity * channelCount)
        // Frames before the stream are zeros: the first output's filter reaches `half - 1` back.
        bufferStart = -(half - 1)
        bufferEnd = 0
        let middleFrames = next == nil ? 0 : (Self.blockFrames + taps + 2) * design.shape.up / design.shape.down + 2
        middle = .allocate(capacity: middleFrames * channelCount)
        middle.initialize(repeating: 0)
    }

    deinit {
        history.deallocate()
        middle.deallocate()
    }

    /// Input frames the filter looks ahead: the output for input time t needs frames up to
    /// t + latencyFrames, so a stream is delayed by this many input frames until `flush`.
    public var latencyFrames: Int { taps / 2 + ((next?.latencyFrames ?? 0) + 1) / 2 }

    /// The most output frames `process` can write for `inputFrames` input frames; also enough for
    /// `flush` when `inputFrames` is 0.
    /// - Parameter inputFrames: The frames one `process` call will be given.
    public func maximumOutputFrames(forInputFrames inputFrames: Int) -> Int {
        let frames = (inputFrames + taps + 2) * up / down + 2
        return next?.maximumOutputFrames(forInputFrames: frames) ?? frames
    }

    /// Converts a chunk of interleaved input.
    /// - Parameters:
    ///   - input: Interleaved frames, `channelCount` samples each; any count, including 0.
    ///   - output: Room for `maximumOutputFrames(forInputFrames:)` frames, interleaved.
    /// - Returns: The frames written to `output`. Chunks of any size give the same samples as
    ///   one call with the whole stream.
    public func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> Int {
        guard let next else { return processStage(input, into: output) }
        // A block at a time through the first stage, so that `middle` holds its output.
        var written = 0
        var at = 0
        while at < input.count {
            let end = min(input.count, at + Self.blockFrames * channelCount)
            let count = processStage(UnsafeBufferPointer(rebasing: input[at..<end]), into: middle)
            written += next.process(
                UnsafeBufferPointer(rebasing: middle[..<(count * channelCount)]),
                into: UnsafeMutableBufferPointer(rebasing: output[(written * channelCount)...]))
            at = end
        }
        return written
    }

    /// Ends the stream: the last frames, from the filter's look-ahead over zeros after the input.
    /// - Parameter output: Room for `maximumOutputFrames(forInputFrames: 0)` frames, interleaved.
    /// - Returns: The frames written, so that the stream's total is round(inputFrames × outputRate / inputRate).
    public func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        guard let next else { return flushStage(into: output) }
        let count = flushStage(into: middle)
        let written = next.process(UnsafeBufferPointer(rebasing: middle[..<(count * channelCount)]), into: output)
        return written + next.flush(into: UnsafeMutableBufferPointer(rebasing: output[(written * channelCount)...]))
    }

    private func processStage(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> Int {
        precondition(!flushed, "Resampler.process after flush")
        precondition(input.count % channelCount == 0, "input is not a whole number of frames")
        let frames = input.count / channelCount
        inputFrames += frames
        var written = 0
        var consumed = 0
        while consumed < frames {
            let count = min(frames - consumed, capacity - (bufferEnd - bufferStart))
            append(input.baseAddress! + consumed * channelCount, frames: count)
            consumed += count
            written += render(into: output, at: written, limit: Int.max)
            compact()
        }
        return written
    }

    private func flushStage(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        precondition(!flushed, "Resampler.flush twice")
        flushed = true
        // round(inputFrames × up / down) in integers, without overflow for any length.
        let total = inputFrames / down * up + (2 * (inputFrames % down) * up + down) / (2 * down)
        var written = 0
        while outputFrames < total {
            let count = capacity - (bufferEnd - bufferStart)
            append(nil, frames: count)
            written += render(into: output, at: written, limit: total)
            compact()
        }
        return written
    }

    /// The largest magnitude that enters the filter (see the conventions above).
    static let inputLimit = Float(sign: .plus, exponent: 100, significand: 1)

    /// Copies `frames` input frames (or zeros for nil) to each channel's history.
    private func append(_ source: UnsafePointer<Float>?, frames: Int) {
        let offset = bufferEnd - bufferStart
        for c in 0..<channelCount {
            let destination = history + c * capacity + offset
            if let source {
                for j in 0..<frames {
                    let x = source[j * channelCount + c]
                    destination[j] = x.isFinite ? min(max(x, -Self.inputLimit), Self.inputLimit) : 0
                }
            } else {
                destination.update(repeating: 0, count: frames)
            }
        }
        bufferEnd += frames
    }

    /// Writes every output frame whose filter span is in the history, up to `limit` in total.
    private func render(into output: UnsafeMutableBufferPointer<Float>, at start: Int, limit: Int) -> Int {
        let half = taps / 2
        let whole = down / up
        let step = down % up
        var written = 0
        var out = output.baseAddress! + start * channelCount
        precondition(output.count >= start * channelCount)
        let room = output.count / channelCount - start
        // The position in locals: a class's stored vars would be re-read (and access-checked)
        // on every output frame.
        var inputIndex = inputIndex
        var phase = phase
        let end = limit - outputFrames
        let bufferEnd = bufferEnd
        let bufferStart = bufferStart
        // Locals: the loops below read them at every output frame.
        let (channelCount, capacity, taps, up, useFMA) = (channelCount, capacity, taps, up, useFMA)
        let (history, coefficients, exactPhases) = (history, coefficients, exactPhases)
        defer {
            self.inputIndex = inputIndex
            self.phase = phase
            outputFrames += written
        }
        // The common case on its own: stereo, exact phases, FMA kernels; fewer live values
        // than the general loop below, so that nothing spills to the stack per frame.
        if exactPhases && channelCount == 2 && useFMA {
            let left = history - bufferStart - half + 1
            let right = left + capacity
            let stop = Swift.min(end, room)
            while inputIndex + half < bufferEnd && written < stop {
                np_resampler_dot2_fma(coefficients + phase * taps, left + inputIndex, right + inputIndex, taps, out)
                out += 2
                written += 1
                inputIndex += whole
                phase += step
                if phase >= up {
                    phase -= up
                    inputIndex += 1
                }
            }
            precondition(!(inputIndex + half < bufferEnd && written < end), "Resampler output buffer too small")
            return written
        }
        while inputIndex + half < bufferEnd && written < end {
            precondition(written < room, "Resampler output buffer too small")
            let first = inputIndex - half + 1 - bufferStart
            if exactPhases {
                let kernel = coefficients + phase * taps
                var c = 0
                // Two channels per pass share the coefficient loads.
                while c + 2 <= channelCount {
                    let x = history + c * capacity + first
                    if useFMA {
                        np_resampler_dot2_fma(kernel, x, x + capacity, taps, out + c)
                    } else {
                        (out[c], out[c + 1]) = Self.dot2(kernel, x, x + capacity, count: taps)
                    }
                    c += 2
                }
                if c < channelCount {
                    out[c] = Self.dot(kernel, history + c * capacity + first, count: taps, fma: useFMA)
                }
            } else {
                // Linear interpolation between the two nearest tabulated phases.
                let position = Double(phase) * Double(Self.interpolatedPhases) / Double(up)
                let p = Int(position)
                let fraction = Float(position - Double(p))
                let a = coefficients + p * taps
                let b = a + taps
                for c in 0..<channelCount {
                    let x = history + c * capacity + first
                    let ya = Self.dot(a, x, count: taps, fma: useFMA)
                    let yb = Self.dot(b, x, count: taps, fma: useFMA)
                    out[c] = ya + fraction * (yb - ya)
                }
            }
            out += channelCount
            written += 1
            inputIndex += whole
            phase += step
            if phase >= up {
                phase -= up
                inputIndex += 1
            }
        }
        return written
    }

    /// Drops history no output needs any more, so that the next block fits.
    private func compact() {
        let keepFrom = min(inputIndex - taps / 2 + 1, bufferEnd)
        let drop = keepFrom - bufferStart
        guard drop > 0 else { return }
        let kept = bufferEnd - keepFrom
        for c in 0..<channelCount {
            let base = history + c * capacity
            base.update(from: base + drop, count: kept)
        }
        bufferStart = keepFrom
    }

    /// AVX2 + FMA (CResamplerKernels) where the processor has them: about twice the SSE loop's
    /// speed. Sums are then fused and so differ from the SSE loop's in the last bits.
    static let hasFMA = np_resampler_has_fma() != 0

    /// The inner loop: two SIMD8 accumulators, `count` a multiple of 8.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int, fma: Bool) -> Float {
        if fma { return np_resampler_dot_fma(a, b, count) }
        let ra = UnsafeRawPointer(a)
        let rb = UnsafeRawPointer(b)
        var s0 = SIMD8<Float>()
        var s1 = SIMD8<Float>()
        var j = 0
        while j + 16 <= count {
            s0 += ra.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self) * rb.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self)
            s1 += ra.loadUnaligned(fromByteOffset: j * 4 + 32, as: SIMD8<Float>.self) * rb.loadUnaligned(fromByteOffset: j * 4 + 32, as: SIMD8<Float>.self)
            j += 16
        }
        if j < count {
            s0 += ra.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self) * rb.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self)
        }
        return (s0 + s1).sum()
    }

    /// `dot` for two histories at once: each coefficient vector is loaded once.
    @inline(__always)
    static func dot2(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ c: UnsafePointer<Float>, count: Int) -> (Float, Float) {
        let ra = UnsafeRawPointer(a)
        let rb = UnsafeRawPointer(b)
        let rc = UnsafeRawPointer(c)
        var b0 = SIMD8<Float>()
        var b1 = SIMD8<Float>()
        var c0 = SIMD8<Float>()
        var c1 = SIMD8<Float>()
        var j = 0
        while j + 16 <= count {
            let k0 = ra.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self)
            let k1 = ra.loadUnaligned(fromByteOffset: j * 4 + 32, as: SIMD8<Float>.self)
            b0 += k0 * rb.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self)
            c0 += k0 * rc.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self)
            b1 += k1 * rb.loadUnaligned(fromByteOffset: j * 4 + 32, as: SIMD8<Float>.self)
            c1 += k1 * rc.loadUnaligned(fromByteOffset: j * 4 + 32, as: SIMD8<Float>.self)
            j += 16
        }
        if j < count {
            let k0 = ra.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self)
            b0 += k0 * rb.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self)
            c0 += k0 * rc.loadUnaligned(fromByteOffset: j * 4, as: SIMD8<Float>.self)
        }
        return ((b0 + b1).sum(), (c0 + c1).sum())
    }

    static func sinc(_ x: Double) -> Double {
        x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
    }

    static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}

/// w(x) = I0(β √(1 − (x/H)²)) / I0(β) for |x| ≤ H.
struct KaiserWindow {
    let beta: Double
    let halfWidth: Double
    let scale: Double

    init(beta: Double, halfWidth: Double) {
        self.beta = beta
        self.halfWidth = halfWidth
        scale = 1 / Self.besselI0(beta)
    }

    func value(at x: Double) -> Double {
        let r = x / halfWidth
        guard abs(r) <= 1 else { return 0 }
        return Self.besselI0(beta * (1 - r * r).squareRoot()) * scale
    }

    /// The power series; converges for the β used here (below 20) within 60 terms. Multiplies
    /// by 1/k² from a table: the divisions were most of a filter's design time.
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        let q = x * x / 4
        for k in 1..<inverseSquares.count {
            term *= q * inverseSquares[k]
            sum += term
            if term < sum * 1e-17 { break }
        }
        return sum
    }

    static let inverseSquares: [Double] = (0..<80).map { $0 == 0 ? 0 : 1 / Double($0 * $0) }
}

/// One stage's filter coefficients, designed once per (rates, design) and shared by every
/// resampler that converts those rates: a daemon converting each notification sound to its
/// device's rate pays the design (about 0.57 ms for 44.1 ↔ 48 kHz) once, not per sound, and
/// keeps one table (about 107 kB) instead of one per voice. Immutable after init.
final class FilterDesign: @unchecked Sendable {
    struct Key: Hashable {
        var inputRate: Int
        var outputRate: Int
        var attenuation: Double
        var edge: Double
        var band: [Double]?
        var forceInterpolatedPhases: Bool
    }

    /// A design's dimensions, known before its coefficients: what it would cost.
    struct Shape {
        let up: Int
        let down: Int
        let taps: Int
        let phaseCount: Int
        let exactPhases: Bool
        /// Phases the fractions are counted in (`up`, or the interpolated table's).
        let tablePhases: Int
        /// Cycles per input frame, and the Kaiser window's shape.
        let cutoff: Double
        let beta: Double
        var byteCount: Int { phaseCount * taps * MemoryLayout<Float>.size }

        init(_ key: Key) {
            let divisor = Resampler.gcd(key.inputRate, key.outputRate)
            up = key.outputRate / divisor
            down = key.inputRate / divisor
            // The filter works in input frames. Passband to edge × the lower Nyquist, stopband
            // from that Nyquist on (nothing folds back below it), cutoff in the middle.
            let lowerNyquist = 0.5 * Double(min(key.inputRate, key.outputRate))
            let (passband, stopband) = key.band.map { ($0[0], $0[1]) } ?? (key.edge * lowerNyquist, lowerNyquist)
            cutoff = (passband + stopband) / 2 / Double(key.inputRate)
            let transition = (stopband - passband) / Double(key.inputRate)
            // Kaiser's estimates of the length and shape for that attenuation and transition.
            let attenuation = key.attenuation
            let length = (attenuation - 7.95) / (2.285 * 2 * Double.pi * transition)
            beta = attenuation > 50 ? 0.1102 * (attenuation - 8.7) : 0.5842 * pow(attenuation - 21, 0.4) + 0.07886 * (attenuation - 21)
            taps = max(8, (Int(length.rounded(.up)) + 7) / 8 * 8)
            exactPhases = up <= Resampler.maximumExactPhases && !key.forceInterpolatedPhases
            phaseCount = exactPhases ? up : Resampler.interpolatedPhases + 1
            tablePhases = exactPhases ? up : Resampler.interpolatedPhases
        }
    }

    let shape: Shape
    let coefficients: UnsafeMutablePointer<Float>
    var byteCount: Int { shape.byteCount }

    /// What is kept for reuse: at most this many bytes of tables in all, each at most a quarter
    /// of it (a rare rate's large table is designed for its sound and let go with it); past
    /// that the oldest are let go (resamplers using one keep it).
    static let keptBytes = 8 << 20
    private static let designs = Mutex<(byKey: [Key: FilterDesign], order: [Key], bytes: Int)>(([:], [], 0))

    /// The design for `key`, from the ones kept or made now (outside the lock: two threads may
    /// both design it, and one design is kept).
    static func shared(_ key: Key) -> FilterDesign {
        if let kept = designs.withLock({ $0.byKey[key] }) { return kept }
        let made = FilterDesign(key)
        guard made.byteCount <= keptBytes / 4 else { return made }
        return designs.withLock { designs in
            if let kept = designs.byKey[key] { return kept }
            designs.byKey[key] = made
            designs.order.append(key)
            designs.bytes += made.byteCount
            while designs.bytes > keptBytes, let oldest = designs.order.first {
                designs.order.removeFirst()
                designs.bytes -= designs.byKey.removeValue(forKey: oldest)?.byteCount ?? 0
            }
            return made
        }
    }

    /// Bytes of tables kept, for the tests.
    static var keptByteCount: Int { designs.withLock { $0.bytes } }

    private init(_ key: Key) {
        let shape = Shape(key)
        self.shape = shape
        let (taps, phaseCount, tablePhases) = (shape.taps, shape.phaseCount, shape.tablePhases)

        // Phase p puts the output at fraction p / tablePhases past input frame i; tap m reads
        // input frame i - half + 1 + m, at distance x = p / tablePhases + half - 1 - m from it.
        coefficients = .allocate(capacity: phaseCount * taps)
        let half = taps / 2
        let window = KaiserWindow(beta: shape.beta, halfWidth: Double(half))
        var row = [Double](repeating: 0, count: taps)
        for p in 0..<phaseCount {
            // The kernel is even: phase p is phase (tablePhases - p) reversed; design half.
            if 2 * p > tablePhases {
                let mirror = coefficients + (tablePhases - p) * taps
                for m in 0..<taps { coefficients[p * taps + m] = mirror[taps - 1 - m] }
                continue
            }
            var sum = 0.0
            for m in 0..<taps {
                let x = Double(p) / Double(tablePhases) + Double(half - 1 - m)
                let value = 2 * shape.cutoff * Resampler.sinc(2 * shape.cutoff * x) * window.value(at: x)
                row[m] = value
                sum += value
            }
            // Each phase passes DC with gain 1 exactly, so a constant stays constant.
            for m in 0..<taps { coefficients[p * taps + m] = Float(row[m] / sum) }
        }
    }

    deinit { coefficients.deallocate() }
}
