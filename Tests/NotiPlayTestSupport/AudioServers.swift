import Foundation

/// ALSA's `file` plugin in front of the `null` device: every byte written to the PCM lands in
/// a file, in the negotiated format. Selected per process with ALSA_CONFIG_PATH.
public struct ALSATap {
    public let configPath: String
    public let capturePath: String

    /// `channelMap`: the speakers of the device's channels, in its order, as ALSA's channel maps
    /// spell them ("FL,FR,RL,RR,FC,LFE", a `hw:` 5.1 device's); the null device reports it for
    /// streams of that many channels, and the file plugin passes it on. nil: the device gives none.
    public init(in folder: TemporaryDirectory, name: String = "tap", channelMap: String? = nil) throws {
        capturePath = folder.file("\(name).raw")
        configPath = folder.file("\(name).conf")
        let slave = channelMap.map { "{ type null; chmap [ \"\($0)\" ] }" } ?? "{ type null }"
        let config = """
            pcm.!default {
                type file
                slave.pcm \(slave)
                file "\(capturePath)"
                format "raw"
                hint.description "noti-play test tap"
            }
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    public var environment: [String: String] { ["ALSA_CONFIG_PATH": configPath] }

    /// What reached the PCM.
    public func captured() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: capturePath)))
    }
}

/// A private PulseAudio server with a null sink, reached through ALSA's `pulse` plugin: a real
/// clock, and a monitor source to record what was played with `parec`.
///
/// The sink takes no rewinds: when a stream starts, PulseAudio would otherwise rewrite audio the
/// sink had already rendered, and the monitor (which never rewinds) would miss a sound's first
/// few milliseconds although the sink played them.
public final class PulseServer: @unchecked Sendable {
    public static let shared: PulseServer? = try? PulseServer()

    public let folder = TemporaryDirectory("pulse")
    public var socket: String { folder.file("native") }
    public var alsaConfigPath: String { folder.file("asound.conf") }
    public let sinkName = "noti_null"

    /// For processes that should play through this server.
    public var environment: [String: String] {
        [
            "ALSA_CONFIG_PATH": alsaConfigPath, "PULSE_SERVER": "unix:" + socket,
            // libpulse in a client would otherwise try to autolaunch a session bus too.
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent", "PULSE_RUNTIME_PATH": folder.file("client"),
        ]
    }

    /// Whether this server writes a pid file (a private server a test may kill).
    private let killable: Bool

    private init() throws {
        killable = false
        try start()
    }

    /// A server of the test's own, which it may kill (`kill(_:)`) without disturbing others.
    public static func makePrivate() throws -> PulseServer {
        try PulseServer(killable: true)
    }

    private init(killable: Bool) throws {
        self.killable = killable
        try start()
    }

    /// The daemon's process ID (private servers only: they write a pid file).
    public var pid: pid_t? {
        guard killable, let text = try? String(contentsOfFile: folder.file("run/pid"), encoding: .utf8) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Sends `signal` to a private server.
    public func kill(_ signal: Int32) {
        if let pid { Foundation.kill(pid, signal) }
    }

    deinit {
        if killable { kill(SIGKILL) }
    }

    /// Starts the server again if it went away (it quits after 10 s without clients).
    public func ensureRunning() throws {
        let probe = try TestTools.run("pactl", ["--server=unix:" + socket, "info"], environment: environment)
        if probe.status != 0 { try start() }
    }

    private func start() throws {
        let script = """
            load-module module-native-protocol-unix socket=\(socket) auth-anonymous=1
            load-module module-null-sink sink_name=\(sinkName) rate=44100 channels=2 norewinds=1
            set-default-sink \(sinkName)
            """
        try script.write(toFile: folder.file("default.pa"), atomically: true, encoding: .utf8)
        try "pcm.!default { type pulse }\nctl.!default { type pulse }\n"
            .write(toFile: alsaConfigPath, atomically: true, encoding: .utf8)
        // Daemonized, it returns once it serves, and holds none of our pipes.
        // --exit-idle-time: it goes away by itself soon after the last test used it.
        let result = try TestTools.run("pulseaudio", [
            "-n", "-F", folder.file("default.pa"), "--daemonize=yes", "--exit-idle-time=10",
            "--log-level=info", "--log-target=file:" + folder.file("pulseaudio.log"), "--use-pid-file=\(killable ? "yes" : "no")",
        ], environment: [
            "PULSE_RUNTIME_PATH": folder.file("run"), "PULSE_STATE_PATH": folder.file("state"), "HOME": folder.path,
            // Without a session bus it would try to autolaunch one and stall for ~20 s.
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent",
        ])
        guard result.status == 0, FileManager.default.fileExists(atPath: socket) else {
            let log = (try? String(contentsOfFile: folder.file("pulseaudio.log"), encoding: .utf8)) ?? ""
            throw ToolFailure(command: "pulseaudio", stderr: "did not start: \(result.stderr) \(log)")
        }
    }

    /// Keeps the sink rendering in 5 ms blocks, as a sink with a real device clock does, while
    /// `body` runs: a low-latency reader of its monitor (discarding what it reads). Without a
    /// client that asks for low latency the null sink renders 2 s blocks and, taking no
    /// rewinds, keeps rendering the block in flight after a playback stream asks for less.
    public func atLowLatency<T>(_ body: () throws -> T) throws -> T {
        try ensureRunning()
        let reader = try ChildProcess("parec", [
            "--server=unix:" + socket, "-d", sinkName + ".monitor", "--format=s16le", "--rate=44100",
            "--channels=2", "--latency-msec=5", "--raw", "/dev/null",
        ], environment: environment, in: folder)
        defer { reader.signal(SIGINT); reader.wait() }
        usleep(2_200_000)  // the 2 s block in flight when it asked plays out
        return try body()
    }

    /// Records the sink's monitor as interleaved S16 stereo while `body` runs, then `tail` longer.
    public func record(tail: TimeInterval = 0.3, during body: () throws -> Void) throws -> [Int16] {
        try ensureRunning()
        let output = folder.file("capture-\(UUID().uuidString).raw")
        let recorder = try ChildProcess("parec", [
            "--server=unix:" + socket, "-d", sinkName + ".monitor", "--format=s16le", "--rate=44100",
            "--channels=2", "--latency-msec=5", "--raw", output,
        ], environment: environment, in: folder)
        // The null sink renders 2 s blocks until a client asks for low latency; the block in
        // flight when parec asks still plays out, and a stream started then waits behind it.
        usleep(2_200_000)
        try body()
        usleep(useconds_t(tail * 1_000_000))
        recorder.signal(SIGINT)
        recorder.wait()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}
