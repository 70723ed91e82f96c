import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The engine on a scripted device (`PCMBackend`) instead of ALSA: what the device is handed is
/// exactly what the engine mixed, in the format the device chose.
@Suite struct EngineBackendTests {
    static let sound = Repository.path + "/Sounds/default.caf"

    func engine(on device: ScriptedDevice) throws -> PlaybackEngine {
        try PlaybackEngine(
            backend: device.backend, device: "scripted",
            request: PCMRequest(sampleRate: 44100, channelCount: 1, formats: [.float32]), drainWhenIdle: true)
    }

    /// Paced, the device takes frames as a sound card would (0.9 s); unpaced, as fast as they come.
    @Test(arguments: [false, true])
    func theDeviceReceivesTheSoundTimesTheVolumeInTheFormatItChose(paced: Bool) throws {
        let device = ScriptedDevice(paced: paced)
        defer { device.release() }
        let engine = try engine(on: device)
        // The device rounds the 441-frame period it was asked for up to 512: the engine goes by that.
        #expect(engine.format == device.format(ofStream: 0))
        #expect(engine.format.periodFrames == 512 && engine.format.bufferFrames == 1536)
        let outcome = Locked<VoiceOutcome?>(nil)
        try engine.play(try SoundDecoder(path: Self.sound), volume: 0.8) { result in outcome.withLock { $0 = result } }
        engine.finish()
        let decoded = try SoundDecoder(path: Self.sound).readAll()
        #expect(outcome.withLock { $0 } == .finished)
        #expect(device.samples(ofStream: 0) == decoded.map { $0 * 0.8 })
        #expect(engine.framesWritten == decoded.count)
        #expect(device.counts == ScriptedDevice.Counts(openAttempts: 1, opens: 1, closes: 1))
    }

    /// A write that fails (-EIO, which no recovery mends) ends the voice with the device's error;
    /// the device took the sound's first frames exactly, the last write partly.
    @Test func aFailedWriteEndsTheVoiceWithTheDevicesErrorAfterTheFramesItTook() throws {
        let taken = 10_000  // not a whole number of 512-frame periods
        let device = ScriptedDevice(writing: .failsAfter(frames: taken, code: -EIO))
        defer { device.release() }
        let engine = try engine(on: device)
        let outcome = Locked<VoiceOutcome?>(nil)
        try engine.play(try SoundDecoder(path: Self.sound)) { result in outcome.withLock { $0 = result } }
        engine.finish()
        let failure = try #require(engine.deviceFailure)
        #expect(failure.description == "audio device 'scripted' (ALSA): stopped playing: Input/output error")
        #expect(outcome.withLock { $0 } == .failed(.device(failure)))
        #expect(device.samples(ofStream: 0) == Array(try SoundDecoder(path: Self.sound).readAll().prefix(taken)))
        #expect(engine.framesWritten == taken)
        #expect(device.counts.closes == 1)
    }
}
