import Foundation

/// A mount namespace where the Swift toolchain's folder is an empty tmpfs: what is run in it
/// sees the machine as a user without Swift has it. It lives as long as this object (a process
/// that sleeps in it); `command` runs a program inside it through `nsenter`. Needs root (as CI
/// runs) for `unshare -m` and `nsenter` (util-linux).
public final class HiddenToolchain {
    public let toolchain: String
    private let holder: ChildProcess

    public init(in folder: TemporaryDirectory) throws {
        toolchain = try Self.toolchainFolder()
        holder = try ChildProcess("unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", """
            mount -t tmpfs tmpfs "$1" || exit 90
            if [ -e "$1/usr/lib/swift/linux/libswiftCore.so" ]; then echo "the toolchain is still there" >&2; exit 91; fi
            echo hidden
            exec sleep infinity
            """, "sh", toolchain], in: folder)
        try waitUntil("the toolchain to be hidden", timeout: 10) { holder.stdout == "hidden\n" || holder.poll() != nil }
        guard holder.poll() == nil else { throw RigFailure("unshare --mount", holder.stderr) }
    }

    deinit {
        holder.signal(SIGKILL)
        _ = holder.wait()
    }

    /// `executable` and `arguments`, to be run inside the namespace.
    public func command(_ executable: String, _ arguments: [String] = []) -> [String] {
        ["/usr/bin/nsenter", "--target", String(holder.pid), "--mount", "--", executable] + arguments
    }

    /// Runs a program inside the namespace to completion.
    public func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        let command = command(executable, arguments)
        return try TestTools.run(command[0], Array(command.dropFirst()), environment: environment)
    }

    /// The Swift toolchain's folder: the one whose usr/bin holds the `swift` on PATH (/opt/swift).
    public static func toolchainFolder() throws -> String {
        let swift = try TestTools.runChecked("/bin/sh", ["-c", "readlink -f \"$(command -v swift)\""]).stdoutText
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let folder = URL(fileURLWithPath: swift).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder + "/usr/lib/swift/linux/libswiftCore.so") else {
            throw RigFailure("the Swift toolchain's folder", "no usr/lib/swift/linux/libswiftCore.so under \(folder)")
        }
        return folder
    }
}
