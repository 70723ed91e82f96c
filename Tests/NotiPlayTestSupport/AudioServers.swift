import Foundation

/// ALSA's `file` plugin in front of the `null` device: every byte written to the PCM lands in
/// a file, in the negotiated format. Selected per process with ALSA_CONFIG_PATH.
public struct ALSATap {
    public let configPath: String
    public let capturePath: String

    public init(in folder: TemporaryDirectory, name: String = "tap") throws {
        capturePath = folder.file("\(name).raw")
        configPath = folder.file("\(name).conf")
        let config = """
            pcm.!default {
                type file
                slave.pcm { type null }
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
public final class PulseServer: @unchecked Sendable {
    public static let shared: PulseServer? = try? PulseServer()

    public let folder = TemporaryDirectory("pulse")
    public var socket: String { folder.file("native") }
    public var alsaConfigPath: String { folder.file("asound.conf") }
    public let sinkName = "noti_null"

    /// For processes that should play through this server.
    public var environment: [String: String] {
        ["ALSA_CONFIG_PATH": alsaConfigPath, "PULSE_SERVER": "unix:" + socket]
    }

    private let process = Process()

    private init() throws {
        let script = """
            load-module module-native-protocol-unix socket=\(socket) auth-anonymous=1
            load-module module-null-sink sink_name=\(sinkName) rate=44100 channels=2
            set-default-sink \(sinkName)
            """
        try script.write(toFile: folder.file("default.pa"), atomically: true, encoding: .utf8)
        try "pcm.!default { type pulse }\nctl.!default { type pulse }\n"
            .write(toFile: alsaConfigPath, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // --exit-idle-time: the server goes away by itself soon after the last test used it.
        process.arguments = [
            "pulseaudio", "-n", "-F", folder.file("default.pa"), "--daemonize=no", "--exit-idle-time=20",
            "--log-level=error", "--use-pid-file=no",
        ]
        var env = ProcessInfo.processInfo.environment
        env["PULSE_RUNTIME_PATH"] = folder.file("run")
        env["PULSE_STATE_PATH"] = folder.file("state")
        env["HOME"] = folder.path
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) {
            usleep(50_000)
        }
        guard FileManager.default.fileExists(atPath: socket) else { throw ToolFailure(command: "pulseaudio", stderr: "did not start") }
    }

    deinit { process.terminate() }

    /// Records the sink's monitor as interleaved S16 stereo while `body` runs, then a little longer.
    public func record(tail: TimeInterval = 0.3, during body: () throws -> Void) throws -> [Int16] {
        let output = folder.file("capture-\(UUID().uuidString).raw")
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        recorder.arguments = [
            "parec", "--server=unix:" + socket, "-d", sinkName + ".monitor", "--format=s16le", "--rate=44100",
            "--channels=2", "--latency-msec=5", "--raw", output,
        ]
        recorder.standardError = FileHandle.nullDevice
        try recorder.run()
        usleep(300_000)  // let the recording stream start
        try body()
        usleep(useconds_t(tail * 1_000_000))
        recorder.interrupt()
        recorder.waitUntilExit()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}
