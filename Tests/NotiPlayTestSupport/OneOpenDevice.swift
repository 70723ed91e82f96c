import Foundation

/// A device like a sound card's `hw:`, on real ALSA: Tests/ALSAPlugins/pcm_once.c, an ALSA
/// external (ioplug) plugin compiled into the test's folder and made the `default` device of
/// the processes given `environment` (ALSA_CONFIG_PATH). One open at a time, across processes
/// (another open fails with "Device or resource busy"); one rate; stereo FLOAT_LE or S16_LE; a
/// real-time clock. It records every frame written to it (`captured()`) and logs each open,
/// refusal, configuration, underrun and close (`events()`). Given `freezePath`, a stream that
/// starts while that file exists is frozen: it plays nothing and its poll descriptor never wakes
/// (a sound server stopped behind its ALSA plugin), until the device is prepared again.
public struct OneOpenDevice: Sendable {
    public let rate: Int
    public let configPath: String
    public let capturePath: String
    public let logPath: String
    /// While this file exists, streams start frozen (nil: never).
    public let freezePath: String?

    /// One line of the device's log: `open`, `refused`, `hw_params`, `xrun`, `frozen` or `close`, by
    /// process `pid`, with its other `name=value` fields.
    public struct Event: Sendable, CustomStringConvertible {
        public var kind: String
        public var pid: Int32
        public var fields: [String: String]
        public var description: String { "\(kind) pid=\(pid) \(fields.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " "))" }
    }

    /// Compiles the plugin with `cc` (a missing compiler or ALSA header fails here) and writes
    /// the configuration that makes it the `default` device, playing only `rate`.
    public init(in folder: TemporaryDirectory, rate: Int, freezePath: String? = nil) throws {
        self.rate = rate
        self.freezePath = freezePath
        let module = folder.file("libasound_module_pcm_once.so")
        let source = Repository.path + "/Tests/ALSAPlugins/pcm_once.c"
        let compile = try TestTools.run("cc", ["-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-O1", "-o", module, source, "-lasound"])
        guard compile.status == 0 else { throw ToolFailure(command: "cc \(source)", stderr: compile.stderr) }
        configPath = folder.file("once.conf")
        capturePath = folder.file("once.raw")
        logPath = folder.file("once.log")
        let config = """
            pcm_type.once { lib "\(module)" }
            pcm.!default {
                type once
                rate \(rate)
                file "\(capturePath)"
                lock "\(folder.file("once.lock"))"
                log "\(logPath)"\(freezePath.map { "\n    freeze \"\($0)\"" } ?? "")
            }
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    public var environment: [String: String] { ["ALSA_CONFIG_PATH": configPath] }

    /// The log so far, in order (none before the first open).
    public func events() throws -> [Event] {
        guard FileManager.default.fileExists(atPath: logPath) else { return [] }
        return try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").map { line in
            var words = line.split(separator: " ")
            let kind = String(words.removeFirst())
            var fields: [String: String] = [:]
            for word in words {
                let parts = word.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { throw RigFailure("the device's log", "'\(line)' is not KIND NAME=VALUE...") }
                fields[String(parts[0])] = String(parts[1])
            }
            guard let pid = fields.removeValue(forKey: "pid").flatMap({ Int32($0) }) else {
                throw RigFailure("the device's log", "'\(line)' names no pid")
            }
            return Event(kind: kind, pid: pid, fields: fields)
        }
    }

    /// Every byte written to the device, by every open, in order.
    public func captured() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: capturePath)))
    }
}
