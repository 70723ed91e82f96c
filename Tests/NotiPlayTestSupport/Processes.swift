import Foundation

/// What a finished process left behind.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: [UInt8]
    public var stderr: String
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

public enum TestTools {
    /// Runs `executable` (a path, or a name looked up on PATH) to completion.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> ProcessResult {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
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
            status: process.terminationStatus, stdout: [UInt8](outData),
            stderr: String(decoding: errData, as: UTF8.self))
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
