import Foundation
import NotiPlay
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

extension PipeWireTests {
    /// ALSA's `default` through pipewire-alsa, its server stopped (SIGSTOP) mid-sound: the
    /// library's player fails the sound as stalled within the deadline, and its render thread
    /// returns from the device while the server is still stopped (it sat in snd_pcm_writei's poll
    /// without a timeout for as long as the server was stopped: for ever, where a wake-up was
    /// lost), no thread spinning meanwhile. Once the server is continued, the same player plays
    /// the next sound. (FrozenDeviceTests: the same on a device that never wakes again.)
    @Test func aServerStoppedBehindPipeWireALSAFailsTheSoundAndLetsItsThreadGo() throws {
        _ = try PipeWireServer.pipeWireALSA.get()
        let server = try PipeWireServer()
        try server.setSetting("clock.force-quantum", "512")  // one cycle length throughout (PipeWireTests)
        try withEnvironment(["ALSA_CONFIG_PATH": server.alsaConfigPath, "PIPEWIRE_RUNTIME_DIR": server.runtimeDirectory]) {
            _ = try tone("stopped.wav", seconds: 10)
            let after = try tone("continued.wav", seconds: 0.5)
            let before = Set(Self.threads())
            var configuration = NotificationSoundPlayer.Configuration(appFolders: [folder.path], idleTimeout: 60, policy: SoundPolicy())
            configuration.pcmBackend = .alsa
            let player = NotificationSoundPlayer(configuration: configuration)
            defer { player.close() }

            let ended = Locked<PlaybackReport?>(nil)
            try player.play(.named("stopped.wav")) { report in ended.withLock { $0 = report } }
            try waitUntil("the stream's node on the server", timeout: 10) {
                !(try server.nodeProperties(where: "media.class", is: "Stream/Output/Audio")).isEmpty
            }
            usleep(500_000)
            let daemon = try #require(server.daemon)
            daemon.signal(SIGSTOP)
            let stopped = monotonicNanoseconds()
            var continued = false
            defer { if !continued { daemon.signal(SIGCONT) } }
            try waitUntil("the sound to end", timeout: 15) { ended.withLock { $0 != nil } }
            let failedAfter = Double(monotonicNanoseconds() - stopped) / 1e9
            let report = try #require(ended.withLock { $0 })
            #expect(report.result == .failed(.deviceStalled(device: "default", backend: .alsa, seconds: 5)), "\(report.result)")
            #expect(failedAfter < 9, "the sound failed \(failedAfter) s after the server was stopped")

            // The server still stopped: the stalled stream's render thread has returned.
            func renderThreads() -> [String] {
                Set(Self.threads()).subtracting(before).filter {
                    (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix("noti-play-mix") == true
                }
            }
            let deadline = monotonicNanoseconds() + 3_000_000_000
            while !renderThreads().isEmpty && monotonicNanoseconds() < deadline { usleep(50_000) }
            #expect(renderThreads().isEmpty, "a render thread is still in the device \(Double(monotonicNanoseconds() - stopped) / 1e9) s after the server was stopped")
            let busiest = Self.busiestThreads(process: "self", among: Set(Self.threads()).subtracting(before))
            #expect(busiest.share < 0.05, "with the server stopped \(busiest.description)")

            daemon.signal(SIGCONT)
            continued = true
            let next = Locked<PlaybackReport?>(nil)
            let recording = try server.record {
                try player.play(.named("continued.wav")) { report in next.withLock { $0 = report } }
                try waitUntil("the next sound to end", timeout: 15) { next.withLock { $0 != nil } }
            }
            #expect(next.withLock { $0 }?.result == .finished, "the next sound on the same player: \(String(describing: next.withLock { $0 }?.result))")
            let heardAny = PulseTests.soundingRange(recording) != nil  // not in #require: it would print the recording
            try #require(heardAny, "the sink heard nothing of the next sound")
            let alignment = try Self.alignment(of: recording, with: try Self.expected(after))
            // pipewire-alsa's first 100 ms only, as theRigsALSADefaultPlaysThroughPipeWireALSA.
            #expect(alignment.matchedFrames >= 4800, "\(alignment.matchedFrames) frames exact; \(alignment.gaps)")
            print("pipewire-alsa stopped: the sound failed \(failedAfter) s after SIGSTOP; with the server stopped \(busiest.description)")
        }
    }
}
