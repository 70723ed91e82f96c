import Foundation

/// What a finished process left behind.
public struct ProcessResult: Sendable {
    /// The exit status; for a process killed by a signal, the signal's number (see `signal`).
    public var status: Int32
    /// The signal that ended the process, or nil when it exited.
    public var signal: Int32? = nil
    public var stdout: [UInt8]
    public var stderr: String
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

public enum TestTools {
    /// The folders tools are looked up in, as PATH spells them: the process's own PATH unless a
    /// test narrows it for itself (`TestTools.$searchPath.withValue("/nonexistent") { ... }`),
    /// which is how the tests check that a missing tool fails as missing.
    @TaskLocal public static var searchPath: String? = nil

    /// The path of the executable `name` on the search path; throws `ToolMissing` when there is
    /// none, so that a tool that is not installed can never pass for one that ran and refused.
    public static func locate(_ name: String) throws -> String {
        if name.contains("/") {
            guard access(name, X_OK) == 0 else { throw ToolMissing(name: name, searchPath: "") }
            return name
        }
        let folders = searchPath ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in folders.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        throw ToolMissing(name: name, searchPath: folders)
    }

    /// Runs `executable` (a path, or a name looked up on the search path) to completion.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try locate(executable))
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read stderr on another thread so neither pipe fills up and blocks the child.
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let done = DispatchSemaphore(value: 0)
        let errHandle = err.fileHandleForReading
        Thread.detachNewThread {
            errBox.data = errHandle.readDataToEndOfFile()
            done.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        let errData = errBox.data
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            signal: process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil,
            stdout: [UInt8](outData), stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs a command that must succeed; throws with its stderr otherwise.
    @discardableResult
    public static func runChecked(_ executable: String, _ arguments: [String]) throws -> ProcessResult {
        let result = try run(executable, arguments)
        guard result.status == 0 else {
            throw ToolFailure(command: ([executable] + arguments).joined(separator: " "), stderr: result.stderr)
        }
        return result
    }

    /// The `noti-play` executable built next to the test bundle.
    public static var notiPlay: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // The test binary may sit inside a .xctest bundle folder.
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("noti-play").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("noti-play").path
    }
}

/// A tool the tests need is not installed: a failure of the test machine, never a verdict of
/// the tool on a file.
public struct ToolMissing: Error, CustomStringConvertible, Equatable {
    public var name: String
    public var searchPath: String
    public init(name: String, searchPath: String) {
        self.name = name
        self.searchPath = searchPath
    }
    public var description: String {
        "\(name) is not installed (not found on PATH \(searchPath)); scripts/install-dependencies.sh installs it"
    }
}

public struct ToolFailure: Error, CustomStringConvertible {
    public var command: String
    public var stderr: String
    public var description: String { "\(command) failed: \(stderr)" }
}

/// A fresh folder under the system's temporary directory, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "noti-play-test") {
        let template = NSTemporaryDirectory() + "\(label)-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { fatalError("mkdtemp failed for \(template)") }
        path = String(cString: made)
    }

    /// The path of `name` inside this folder.
    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
