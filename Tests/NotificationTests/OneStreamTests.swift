import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension PlayerTests {
    /// One stream per device: sounds at 44.1, 48 and 8 kHz played together go to one stream at
    /// one rate, converted in the decode worker, as a device that allows one open needs. On
    /// scripted devices (`PCMBackend`), which record exactly what the engine wrote; nested in
    /// `PlayerTests` to be serialized with its idle test.
    @Suite struct OneStream {
        let folder = TemporaryDirectory("one-stream")

        /// A stereo tone as 32-bit float WAV (exact samples), faded in and out over 50 ms: a
        /// smooth start has no wideband click, so the whole sound can be compared with libsoxr.
        func tone(_ name: String, rate: Int, frequency: Int, seconds: Double) throws -> String {
            let path = folder.file(name)
            let fade = "afade=t=in:d=0.05,afade=t=out:st=\(seconds - 0.05):d=0.05"
            try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=\(frequency):d=\(seconds):r=\(rate)",
                                                "-af", fade, "-ac", "2", "-c:a", "pcm_f32le", "-y", path])
            return path
        }

        /// Runs `body` with a player on `device` (its sounds from this test's folder), then closes
        /// the player and lets go of every thread the device still holds.
        func withPlayer(on device: ScriptedDevice, _ body: (NotificationSoundPlayer, Reports) throws -> Void) rethrows {
            var configuration = NotificationSoundPlayer.Configuration(appFolders: [folder.path], device: "scripted", policy: SoundPolicy())
            configuration.pcmBackend = device.backend
            let player = NotificationSoundPlayer(configuration: configuration)
            defer {
                player.close()
                device.release()
            }
            try body(player, Reports())
        }

        /// The three start in the same period: the first one's first period waits inside the
        /// device's write while the other two are started, so the stream is exactly the first at
        /// its own rate (unconverted) plus the others, converted, one period later.
        @Test func soundsAtThreeRatesShareOneStreamAndMixAsLibsoxrWouldConvertThem() throws {
            let a = try tone("a44.wav", rate: 44100, frequency: 440, seconds: 0.5)
            let b = try tone("b48.wav", rate: 48000, frequency: 660, seconds: 0.5)
            let c = try tone("c8.wav", rate: 8000, frequency: 1000, seconds: 0.5)
            // Paced by a clock, as a sound card is: a device without one takes periods as fast as
            // they are mixed, and a voice whose decoder falls behind would slip against the others.
            let device = ScriptedDevice(writing: .stallsAfter(frames: 0), paced: true)
            try withPlayer(on: device) { player, reports in
                try player.play(.named("a44.wav"), gain: 0.5) { reports.add($0) }
                #expect(device.wait { $0.blockedWrites == 1 }, "\(device.counts)")
                try player.play(.named("b48.wav"), gain: 0.3) { reports.add($0) }
                try player.play(.named("c8.wav"), gain: 0.2) { reports.add($0) }
                // Requests are handled in order: once this one is answered, the two before it play.
                try player.play(.named("a44.wav"), suppressSound: true) { reports.add($0) }
                let silenced = PlaybackResult.silenced("the notification asks for no sound (suppress-sound)")
                #expect(reports.wait(1).map(\.result) == [silenced])
                device.release()
                #expect(reports.wait(3).map(\.result) == [silenced, .finished, .finished, .finished])
                #expect(device.counts.opens == 1)

                let format = try #require(device.format(ofStream: 0))
                #expect(format.sampleRate == 44100 && format.channelCount == 2)
                let period = format.periodFrames
                let captured = device.samples(ofStream: 0)
                var expected = [Float](repeating: 0, count: captured.count)
                ExpectedMix.add(try SoundDecoder(path: a).readAll(), volume: 0.5, at: 0, into: &expected)
                ExpectedMix.add(Soxr.resample(try SoundDecoder(path: b).readAll(), channels: 2, from: 48000, to: 44100), volume: 0.3, at: period, into: &expected)
                ExpectedMix.add(Soxr.resample(try SoundDecoder(path: c).readAll(), channels: 2, from: 8000, to: 44100), volume: 0.2, at: period, into: &expected)
                // 0.5 s at 44.1 kHz after one period: both converted sounds end there.
                #expect(captured.count >= 2 * (period + 22050), "\(captured.count) samples")
                let difference = ExpectedMix.differenceDB(captured, expected)
                #expect(difference < -100, "the mix differs from libsoxr's conversions by \(difference) dB")
            }
        }

        /// Through ALSA's file plugin (the tap): three sounds at 44.1, 48 and 8 kHz, each a
        /// constant level of its own, played together. A second stream on the tap would truncate
        /// its file; the one stream holds all three, converted: its sum is each level × its
        /// frames at the stream's rate (a resampler passes a constant at unity gain), whatever
        /// the moment each started.
        @Test func theTapTakesOneStreamHoldingSoundsOfThreeRates() throws {
            let sounds = [("l44.wav", 44100, 0.125), ("l48.wav", 48000, 0.25), ("l8.wav", 8000, 0.0625)]
            for (name, rate, level) in sounds {
                try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "aevalsrc=\(level)|\(level):d=0.3:s=\(rate)",
                                                    "-c:a", "pcm_f32le", "-y", folder.file(name)])
            }
            let capture = folder.file("tap.raw")
            let player = NotificationSoundPlayer(configuration: .init(
                appFolders: [folder.path], device: "file:FILE=\(capture),FORMAT=raw", policy: SoundPolicy()))
            defer { player.close() }
            let reports = Reports()
            for (name, _, _) in sounds { try player.play(.named(name)) { reports.add($0) } }
            #expect(reports.wait(3).map(\.result) == [.finished, .finished, .finished])
            #expect(Set(reports.values.withLock { $0.compactMap { $0.stream?.format.sampleRate } }) == [44100])
            player.close()
            let captured = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let left = stride(from: 0, to: captured.count, by: 2).reduce(0.0) { $0 + Double(captured[$1]) }
            let expected = sounds.reduce(0.0) { sum, sound in
                sum + sound.2 * (0.3 * Double(sound.1)).rounded() * 44100 / Double(sound.1)
            }
            #expect(abs(left - expected) < expected * 1e-3, "the tap's left channel sums to \(left), expected \(expected)")
        }

        /// A 5.1 WAV (ffmpeg writes its channel mask) on the stereo stream: the ITU-R BS.775
        /// downmix, computed here from the decoded channels, not the first two channels.
        @Test func aFiveOneSoundIsDownmixedByItsLayout() throws {
            let path = folder.file("surround.wav")
            try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=300:d=0.2:r=48000",
                                                "-f", "lavfi", "-i", "sine=f=500:d=0.2:r=48000",
                                                "-filter_complex", "[0][1]amerge=inputs=2,pan=5.1|c0=c0|c1=c1|c2=0.5*c0|c3=0.3*c1|c4=0.7*c0|c5=0.6*c1[out]",
                                                "-map", "[out]", "-c:a", "pcm_f32le", "-y", path])
            let decoder = try SoundDecoder(path: path)
            #expect(decoder.description.channelLayout?.speakers.count == 6)
            let channels = try decoder.readAll()
            let device = ScriptedDevice(paced: true)
            try withPlayer(on: device) { player, reports in
                try player.play(.named("surround.wav")) { reports.add($0) }
                #expect(reports.wait(1).map(\.result) == [.finished])
                let half = Float(0.5).squareRoot()
                var expected: [Float] = []
                for frame in 0..<(channels.count / 6) {
                    let (l, r, c, ls, rs) = (channels[6 * frame], channels[6 * frame + 1], channels[6 * frame + 2], channels[6 * frame + 4], channels[6 * frame + 5])
                    expected += [l + half * c + half * ls, r + half * c + half * rs]
                }
                let captured = device.samples(ofStream: 0)
                #expect(device.format(ofStream: 0)?.channelCount == 2 && captured.count == expected.count)
                let worst = zip(captured, expected).map { abs($0 - $1) }.max() ?? 1
                #expect(worst < 1e-6, "largest difference from BS.775: \(worst)")
            }
        }

        /// A critical sound fades every other sound of the device, whatever its rate.
        @Test func aCriticalSoundPreemptsSoundsOfEveryRate() throws {
            for (name, rate) in [("p44.wav", 44100), ("p48.wav", 48000), ("p8.wav", 8000)] {
                _ = try tone(name, rate: rate, frequency: 500, seconds: 3)
            }
            _ = try tone("alarm.wav", rate: 48000, frequency: 880, seconds: 0.2)
            let device = ScriptedDevice(paced: true)
            try withPlayer(on: device) { player, reports in
                for name in ["p44.wav", "p48.wav", "p8.wav"] { try player.play(.named(name)) { reports.add($0) } }
                try player.play(.criticalSoundNamed("alarm.wav", withAudioVolume: 0.8)) { reports.add($0) }
                let results = reports.wait(4).map(\.result)
                #expect(results.filter { $0 == .preempted }.count == 3 && results.last == .finished, "\(results)")
                #expect(device.counts.opens == 1)
            }
        }

        /// A sound cancelled half-way has had only part of its conversion recorded: none of it is
        /// cached, and its next play is converted again, whole (not the half as if it were whole).
        @Test func aSoundCancelledHalfWayIsNotCachedAsIfWhole() throws {
            let path = try tone("half.wav", rate: 44100, frequency: 500, seconds: 1)
            let device = ScriptedDevice(paced: true, rate: 48000)
            try withPlayer(on: device) { player, reports in
                let id = try player.play(.named("half.wav")) { reports.add($0) }
                usleep(300_000)
                player.cancel(id)
                #expect(reports.wait(1).map(\.result) == [.cancelled])
                let cut = device.samples(ofStream: 0).count
                try player.play(.named("half.wav")) { reports.add($0) }
                #expect(reports.wait(1).map(\.result) == [.cancelled, .finished])
                let figures = player.cacheFigures
                #expect(figures.conversions == 2, "\(figures)")
                // The whole sound played the second time: round(44100 × 48000 / 44100) frames.
                let whole = (try SoundDecoder(path: path).readAll().count / 2) * 48000 / 44100 * 2
                #expect(device.samples(ofStream: 0).count - cut == whole, "\(cut) then \(device.samples(ofStream: 0).count)")
                #expect(cut < whole, "not cut: \(cut) samples")
            }
        }

        /// Like a `hw:` device: one rate (48 kHz) and one open at a time. Three overlapping
        /// sounds at 44.1, 48 and 8 kHz all play, on the one stream it allows, at its rate.
        /// (On real ALSA, a plugin that allows one open: OneOpenDeviceTests.)
        @Test func aDeviceWithOneRateAndOneOpenPlaysThreeRates() throws {
            for (name, rate) in [("h44.wav", 44100), ("h48.wav", 48000), ("h8.wav", 8000)] {
                _ = try tone(name, rate: rate, frequency: 500, seconds: 0.3)
            }
            let device = ScriptedDevice(paced: true, rate: 48000, exclusive: true)
            try withPlayer(on: device) { player, reports in
                for name in ["h44.wav", "h48.wav", "h8.wav"] { try player.play(.named(name)) { reports.add($0) } }
                #expect(reports.wait(3).map(\.result) == [.finished, .finished, .finished])
                #expect(device.counts.openAttempts == 1 && device.counts.opens == 1)
                #expect(device.format(ofStream: 0)?.sampleRate == 48000)
                // The 44.1 kHz sound, first, opened the stream and was converted to 48 kHz: 0.3 s
                // at 48 kHz and more (the others overlap it).
                #expect(device.samples(ofStream: 0).count >= 2 * 14400)
            }
        }
    }
}
