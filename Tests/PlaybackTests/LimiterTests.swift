import Foundation
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// The stream's sum of many sounds at once, at a scripted device that holds its first write
/// until every sound has started: sixteen voices then play together from the second period on.
@Suite struct LimiterTests {
    /// 1 s of a 440 Hz sine at half scale, mono, at 44.1 kHz.
    static let tone: [Float] = (0..<44100).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 44100)) }

    /// Sixteen half-scale sounds started together sum to eight times full scale: the limiter
    /// turns the sum down instead of clipping it (without it, 91 % of the samples are full scale,
    /// in flat tops: a square wave's buzz; with it, a peak may touch full scale, never two
    /// neighbouring samples). The sum stays the tones' sine, its only jump where the
    /// fifteen joined the first. Once they ended, a lone sound plays bit for bit, at full gain.
    @Test func aBurstOfSoundsIsTurnedDownNotClippedAndALoneSoundIsUntouched() throws {
        let device = ScriptedDevice(writing: .stallsAfter(frames: 0), paced: true)
        defer { device.release() }
        let engine = try PlaybackEngine(
            backend: device.backend, device: "scripted",
            request: PCMRequest(sampleRate: 44100, channelCount: 1, formats: [.float32]), voiceCapacity: 16, drainWhenIdle: false)
        let ended = Locked(0)
        try engine.play(ArrayFrameSource(channels: 1, Self.tone)) { _ in ended.withLock { $0 += 1 } }
        #expect(device.wait { $0.blockedWrites == 1 })
        for _ in 1..<16 {
            try engine.play(ArrayFrameSource(channels: 1, Self.tone)) { _ in ended.withLock { $0 += 1 } }
        }
        device.writing = .takes
        device.release()
        try waitUntil("the sixteen sounds to end", timeout: 20) { ended.withLock { $0 } == 16 }
        let lone: [Float] = (0..<4410).map { Float($0 % 100) / 100 - 0.5 }
        let loneEnded = Locked(false)
        try engine.play(ArrayFrameSource(channels: 1, lone)) { _ in loneEnded.withLock { $0 = true } }
        try waitUntil("the lone sound to end", timeout: 20) { loneEnded.withLock { $0 } }
        engine.finish()
        let written = device.samples(ofStream: 0)
        // The lone sound starts where its first samples are, after the burst (the device may
        // have written silence after it too, before the engine finished).
        let loneStart = (Self.tone.count..<max(Self.tone.count, written.count - lone.count + 1)).first {
            written[$0] == lone[0] && written[$0 + 1] == lone[1] && written[$0 + 2] == lone[2]
        }
        try #require(loneStart != nil, "the lone sound's first samples are nowhere after the burst (\(written.count) samples written)")
        let burst = Array(written[..<loneStart!])

        // Limited, a peak may reach full scale, its neighbours not (the gain is down before it and
        // stays down across it), except where a peak comes at the very start of a period, past
        // the look-ahead: 42 pairs in 111,000 samples. Clipped, the sum sat there: 40,000.
        #expect(burst.allSatisfy { abs($0) <= 1 })
        let flatTops = zip(burst, burst.dropFirst()).filter { abs($0) >= 0.9999 && abs($1) >= 0.9999 }.count
        #expect(flatTops < burst.count / 1000, "\(flatTops) pairs of neighbouring samples at full scale: clipped, not limited")
        // A full-scale 440 Hz sine moves at most 0.063 from one sample to the next: more is a
        // jump. The fifteen joined at the second period (frame 512, the device's period), a sum
        // whose first frames rise steeply: nowhere else may it jump (clipped, it would jump at
        // every edge of every flat top).
        let jumps = zip(burst, burst.dropFirst()).enumerated().filter { abs($0.element.1 - $0.element.0) > 0.1 }.map(\.offset)
        #expect(jumps.allSatisfy { (511..<528).contains($0) }, "jumps after samples \(jumps.prefix(20))")
        let loneHeard = Array(written[loneStart!..<(loneStart! + lone.count)])
        let firstDifference = zip(loneHeard, lone).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "the lone sound after the burst differs from sample \(firstDifference ?? 0)")
    }
}
