import Foundation

/// A child started with `posix_spawn` as a shell would start it: default signal dispositions and
/// an empty signal mask (Foundation's Process passes on the test thread's blocked signals, so
/// SIGINT would never reach the child), output into files, and an exact `waitpid`.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let stdoutPath: String
    private let stderrPath: String
    public private(set) var status: Int32?
    /// The user and system CPU time the child used in all, once it has ended.
    public private(set) var cpuSeconds: Double = 0

    /// - Parameter standardInput: a path the child reads as its standard input (a FIFO the test
    ///   holds open for writing, to give it commands).
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], in folder: TemporaryDirectory,
                standardInput: String = "/dev/null") throws {
        stdoutPath = folder.file("child-\(UUID().uuidString).out")
        stderrPath = folder.file("child-\(UUID().uuidString).err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // A process group of its own: a daemon that signals its group on the way out (PipeWire's
        // services, run by `context.exec`) must not reach the test process, nor `swift test`.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child = pid_t()
        let resolved = try TestTools.locate(executable)
        let result = posix_spawn(&child, resolved, &actions, &attributes, argv, envp)
        guard result == 0 else { throw ToolFailure(command: executable, stderr: String(cString: strerror(result))) }
        pid = child
    }

    /// Signals the child, unless it has been reaped: its number may since be another process's,
    /// or a thread of this very process (thread IDs share the numbers), which a SIGKILL ends.
    public func signal(_ number: Int32) {
        if status == nil { kill(pid, number) }
    }

    /// Waits for the child to end; returns its exit status, or 128 + the signal that killed it.
    @discardableResult
    public func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        var usage = rusage()
        while wait4(pid, &raw, 0, &usage) < 0 && errno == EINTR {}
        return ended(raw, usage)
    }

    /// The exit status if the child has ended (as `wait()` gives it), nil while it runs.
    public func poll() -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &raw, WNOHANG, &usage) == pid else { return nil }
        return ended(raw, usage)
    }

    private func ended(_ raw: Int32, _ usage: rusage) -> Int32 {
        let termination = raw & 0x7F
        status = termination == 0 ? (raw >> 8) & 0xFF : 128 + termination
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        cpuSeconds = seconds(usage.ru_utime) + seconds(usage.ru_stime)
        return status!
    }

    /// Waits for every child, noting when each ended (within 2 ms), in seconds after `start`.
    public static func waitAll(_ children: [ChildProcess], since start: Date) -> [(status: Int32, seconds: TimeInterval)] {
        var ended = [TimeInterval?](repeating: nil, count: children.count)
        while ended.contains(where: { $0 == nil }) {
            for (index, child) in children.enumerated() where ended[index] == nil && child.poll() != nil {
                ended[index] = Date().timeIntervalSince(start)
            }
            usleep(2_000)
        }
        return zip(children, ended).map { ($0.status!, $1!) }
    }

    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}
