import Benchmark
import ResamplerContenders

#if canImport(Glibc)
import Glibc
#endif

// Resampling 10 seconds of stereo through 4096-frame chunks, as a decode worker would, by
// noti-play's resampler, libsoxr (HQ, VHQ; one thread) and speexdsp (quality 3 and 10), for
// 44.1→48 kHz, 48→44.1 kHz and 8→48 kHz, in the same run. Each iteration sets a resampler up
// (not timed: a player designs a filter once per rate pair), then streams and flushes (timed).
//
// Names are "<contender> <in>→<out>", e.g. "noti-play 44100→48000"; scripts/benchmarks/resampler-report.py
// prints ns per output sample and ratios.

let seconds = 10
let channels = 2

/// Picoseconds per output sample (one channel's value): integers, so in ps for resolution.
let picosecondsPerSample = BenchmarkMetric.custom("ps per output sample", polarity: .prefersSmaller, useScalingFactor: false)

/// Two tones, a sweep and a little noise, different per channel.
func makeSignal(rate: Int) -> [Float] {
    var samples = [Float](repeating: 0, count: seconds * rate * channels)
    var noise: UInt32 = 0x1234_5678
    for frame in 0..<(seconds * rate) {
        let t = Double(frame) / Double(rate)
        for channel in 0..<channels {
            noise = noise &* 1_664_525 &+ 1_013_904_223
            let white = Double(Int32(bitPattern: noise)) / Double(Int32.max)
            let tone = 0.35 * sin(2 * .pi * (440 + 110 * Double(channel)) * t) + 0.2 * sin(2 * .pi * (200 + 40 * t) * t)
            samples[frame * channels + channel] = Float(tone + 0.05 * white)
        }
    }
    return samples
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, picosecondsPerSample],
        timeUnits: .milliseconds,
        // Whole picoseconds, not rounded to thousands: the report needs three digits or more.
        units: [picosecondsPerSample: .count],
        warmupIterations: 1,
        // Short runs: the machine is shared. Each iteration makes 960,000 stereo frames at 48 kHz.
        maxDuration: .milliseconds(1500),
        maxIterations: 15
    )
    let chunk = 4096
    let output = UnsafeMutableBufferPointer<Float>.allocate(capacity: (chunk * 6 + 8192) * channels)
    output.initialize(repeating: 0)

    for (from, to) in measuredConversions {
        let signal = makeSignal(rate: from)
        let expected = seconds * to
        for contender in Contender.allCases {
            Benchmark("\(contender.rawValue) \(from)→\(to)") { benchmark in
                for _ in benchmark.scaledIterations {
                    let resampler = contender.make(from: from, to: to, channels: channels)
                    let start = ContinuousClock.now
                    var frames = 0
                    signal.withUnsafeBufferPointer { all in
                        var at = 0
                        while at < all.count {
                            let end = min(all.count, at + chunk * channels)
                            frames += resampler.process(UnsafeBufferPointer(rebasing: all[at..<end]), into: output)
                            at = end
                        }
                    }
                    while case let n = resampler.flush(into: output), n > 0 { frames += n }
                    let elapsed = ContinuousClock.now - start
                    // Everyone delivers the whole signal (speexdsp a little more: it keeps its delay).
                    precondition(frames >= expected - 2, "\(contender.rawValue) \(from)→\(to): \(frames) frames")
                    blackHole(output[0])
                    let (s, attoseconds) = elapsed.components
                    let nanoseconds = Double(s) * 1e9 + Double(attoseconds) / 1e9
                    benchmark.measurement(picosecondsPerSample, Int(nanoseconds * 1000 / Double(frames * channels)))
                }
            }
        }
    }
}
