import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 12 on real ALSA: a device like a sound card's `hw:`, which allows one open at a time and
/// plays one rate (Tests/ALSAPlugins/pcm_once.c, `OneOpenDevice`), plays three overlapping
/// sounds of different rates from one host. The host is the C library's example daemon
/// (docs/examples/noti-play-daemon.c) built against the installed library, in a process of its
/// own whose ALSA configuration makes that device its `default`.
@Suite struct OneOpenDeviceTests {
    let folder = TemporaryDirectory("one-open")

    /// A stereo linear sweep from `start` to `end` Hz (a cosine on the right), 0.5 s at `rate`, as
    /// 32-bit float WAV (exact samples), faded in and out over 50 ms so that its ends add no
    /// wideband click. Below 0.55 × the lower Nyquist of its conversion, where our resampler and
    /// libsoxr's VHQ are both flat; each sweep is its own, so each sound's place in the stream
    /// is where it correlates best.
    func sweep(_ path: String, rate: Int, from start: Int, to end: Int) throws {
        let phase = "2*PI*(\(start)*t+(\(end)-\(start))*t*t)"  // d(phase)/dt / 2π: start + 2 (end − start) t over 0.5 s
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "aevalsrc=exprs=0.5*sin(\(phase))|0.5*cos(\(phase)):s=\(rate):d=0.5",
                                            "-af", "afade=t=in:d=0.05,afade=t=out:st=0.45:d=0.05", "-c:a", "pcm_f32le", "-y", path])
    }

    /// Where `sound` lies in `stream` (both interleaved stereo), in whole periods: the multiple of
    /// `period` frames at which the two correlate best. The engine mixes a period at a time, and
    /// a sound joins the stream at the start of a period.
    func place(of sound: [Float], in stream: [Float], period: Int) -> Int {
        let last = max(0, (stream.count - sound.count) / 2 / period)
        let correlations = stream.withUnsafeBufferPointer { stream in
            sound.withUnsafeBufferPointer { sound in
                (0...last).map { place in
                    let start = 2 * place * period
                    var sum = 0.0
                    for index in 0..<min(sound.count, stream.count - start) { sum += Double(stream[start + index]) * Double(sound[index]) }
                    return sum
                }
            }
        }
        return correlations.indices.max { correlations[$0] < correlations[$1] }!
    }

    @Test func threeOverlappingSoundsOfThreeRatesPlayThroughTheOneOpenItAllows() throws {
        // Every tool first: a missing one fails here, with its name.
        for tool in ["cc", "gcc", "pkg-config", "ffmpeg", "aplay"] { _ = try TestTools.locate(tool) }
        let device = try OneOpenDevice(in: folder, rate: 48000)
        let daemon = folder.file("noti-play-daemon")
        try InstalledLibrary(in: folder).compile(Repository.path + "/docs/examples/noti-play-daemon.c", into: daemon)

        let sounds = folder.file("sounds")
        for sub in ["sounds", "config", "data"] {
            try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: true)
        }
        // name, rate, sweep, volume
        let plays = [("a44.wav", 44100, (300, 3000), Float(0.5)), ("b48.wav", 48000, (4000, 500), Float(0.3)),
                     ("c8.wav", 8000, (150, 2000), Float(0.2))]
        for (name, rate, (start, end), _) in plays { try sweep(sounds + "/" + name, rate: rate, from: start, to: end) }
        let probe = folder.file("probe.wav")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=1000:d=0.2:r=48000", "-ac", "2",
                                            "-c:a", "pcm_s16le", "-y", probe])

        // The daemon reads its requests from a FIFO this test holds open (it never sees its end).
        let requests = folder.file("requests")
        try #require(mkfifo(requests, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        let writer = open(requests, O_RDWR | O_CLOEXEC)
        try #require(writer >= 0)
        defer { close(writer) }
        func send(_ text: String) throws {
            let bytes = Array(text.utf8)
            try #require(write(writer, bytes, bytes.count) == bytes.count, "cannot write to the daemon")
        }
        let host = try ChildProcess(daemon, [], environment: device.environment.merging([
            "NOTI_PLAY_DEVICE": "default", "NOTI_PLAY_SOUNDS": sounds,
            // Fresh and empty: the user's settings (volume, quiet hours) must not interfere.
            "XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data"),
        ]) { $1 }, in: folder, standardInput: requests)
        defer {
            if host.poll() == nil {
                host.signal(SIGKILL)
                host.wait()
            }
        }
        func output() -> String { "daemon stdout:\n\(host.stdout)\ndaemon stderr:\n\(host.stderr)\ndevice log:\n\((try? device.events()) ?? [])" }

        // The three at once: the first opens the device, the others join its stream.
        try send(plays.map { "name \($0.0) \($0.3)\n" }.joined())
        try waitUntil("the device's open", timeout: 30) { try device.events().contains { $0.kind == "open" } || host.poll() != nil }
        try #require(host.poll() == nil, "the daemon ended: \(output())")

        // While the player holds it, another program cannot open it: a real one-open device.
        let second = try ChildProcess("aplay", ["-N", "-q", "-D", "default", probe], environment: device.environment, in: folder)
        let secondStatus = second.wait()
        #expect(secondStatus != 0 && second.stderr.contains("Device or resource busy"),
                "a second open, by aplay, exited \(secondStatus): \(second.stderr)")

        try send("wait\n")
        try waitUntil("the three sounds' ends", timeout: 30) { host.stdout.contains("idle\n") || host.poll() != nil }
        try send("quit\n")
        try waitUntil("the daemon's exit", timeout: 30) { host.poll() != nil }
        #expect(host.wait() == 0, "\(output())")
        // The library prints nothing of its own, and keeps ALSA's diagnostics from the host's stderr.
        #expect(host.stderr.isEmpty, "\(output())")

        // Every sound finished: three ids, each answered once, finished (and no warning).
        let lines = host.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("started") } == ["started 1", "started 2", "started 3"], "\(output())")
        #expect(lines.filter { $0.hasPrefix("ended") }.sorted() == ["ended 1 finished ", "ended 2 finished ", "ended 3 finished "],
                "\(output())")
        #expect(lines.last == "idle", "\(output())")

        // The device was opened once, by the daemon, and closed when it quit; the one open it
        // refused was aplay's, while the daemon held it. (An underrun, on a loaded machine, may
        // come between: the capture holds every frame written all the same.)
        let events = try device.events()
        let kinds = events.map { "\($0.kind) \($0.pid == host.pid ? "daemon" : $0.pid == second.pid ? "aplay" : "pid \($0.pid)")" }
        #expect(kinds.filter { !$0.hasPrefix("xrun") } == ["open daemon", "hw_params daemon", "refused aplay", "close daemon"], "\(events)")
        let configuration = try #require(events.first { $0.kind == "hw_params" }, "\(events)")
        #expect(configuration.fields["rate"] == "48000" && configuration.fields["format"] == "FLOAT_LE"
                && configuration.fields["channels"] == "2", "\(configuration)")
        let period = try #require(configuration.fields["period"].flatMap { Int($0) }, "\(configuration)")

        // What the device was given is the three sounds mixed at 48 kHz: each converted by
        // libsoxr (the 48 kHz one as it is), at its volume, in its place: the first from the
        // stream's first frame, the others joining it while it plays. Within the resampler's
        // measured difference from libsoxr VHQ (NotiPlayResamplerTests: below −100 dB).
        let bytes = try device.captured()
        let captured = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // The capture is exactly what the daemon's one open wrote (8 bytes a frame).
        #expect(events.last?.fields["frames"] == String(bytes.count / 8), "the capture holds \(bytes.count) bytes; \(events)")
        var expected = [Float](repeating: 0, count: captured.count)
        var places: [Int] = []
        var firstFrames = 0
        for (name, rate, _, volume) in plays {
            let samples = try SoundDecoder(path: sounds + "/" + name).readAll()
            let converted = rate == 48000 ? samples : Soxr.resample(samples, channels: 2, from: rate, to: 48000)
            let start = place(of: converted, in: captured, period: period)
            places.append(start)
            if firstFrames == 0 { firstFrames = converted.count / 2 }
            #expect(captured.count >= 2 * start * period + converted.count, "\(name) at period \(start) ends past the capture's \(captured.count / 2) frames")
            ExpectedMix.add(converted, volume: volume, at: start * period, into: &expected)
        }
        #expect(places[0] == 0 && places.dropFirst().allSatisfy { $0 * period < firstFrames },
                "the sounds start at periods \(places) of \(period) frames: the first at the stream's start, the others while it plays")
        let difference = ExpectedMix.differenceDB(captured, expected)
        #expect(difference < -100, "the mix differs from libsoxr's conversions by \(difference) dB (the sounds at periods \(places))")
    }
}
