import Foundation

/// A desktop session of real parts for `noti-play listen`: a private `dbus-daemon`, a
/// notification server on it (the test's own, Tests/ListenScenarios/fake-notification-server.c
/// on sd-bus, or dunst under Xvfb), the ALSA tap (or a PulseAudio null sink) as the device,
/// and private XDG folders with the test's sounds.
public final class ListenRig {
    public let folder = TemporaryDirectory("listen")
    public let tap: ALSATap
    public private(set) var bus: ChildProcess!
    public var address: String { "unix:path=" + folder.file("bus") }
    private var children: [ChildProcess] = []
    private var commandWriters: [Int32] = []

    public init() throws {
        tap = try ALSATap(in: folder)
        for sub in ["config", "data/sounds/freedesktop/stereo", "data/noti-play/apps/org.example.Chat/sounds", "dirs", "home"] {
            try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: true)
        }
        try "[Sound Theme]\nName=freedesktop\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n"
            .write(toFile: folder.file("data/sounds/freedesktop/index.theme"), atomically: true, encoding: .utf8)
        try startBus()
    }

    deinit {
        for writer in commandWriters { close(writer) }
        for child in children.reversed() where child.poll() == nil {
            child.signal(SIGKILL)
            child.wait()
        }
    }

    /// The environment of everything on this session: the bus, the tap, and XDG folders that
    /// hold only the test's sounds and no configuration.
    public var environment: [String: String] {
        [
            "DBUS_SESSION_BUS_ADDRESS": address, "ALSA_CONFIG_PATH": tap.configPath,
            "XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data"),
            "XDG_DATA_DIRS": folder.file("dirs"), "HOME": folder.file("home"),
        ]
    }

    /// Starts the session bus (again, at the same address, after `stopBus()`).
    public func startBus() throws {
        let config = try String(contentsOfFile: Self.scenario("private-session-bus.conf"), encoding: .utf8)
            .replacingOccurrences(of: "@SOCKET@", with: folder.file("bus"))
        try config.write(toFile: folder.file("bus.conf"), atomically: true, encoding: .utf8)
        unlink(folder.file("bus"))
        bus = try spawn("dbus-daemon", ["--config-file=" + folder.file("bus.conf"), "--nofork", "--nopidfile"])
        try waitUntil("the bus to take connections", timeout: 10) { unixSocketAccepts(self.folder.file("bus")) }
    }

    public func stopBus() {
        bus.signal(SIGTERM)
        bus.wait()
    }

    /// A child of this session, killed at the end of the test if it still runs.
    public func spawn(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:], standardInput: String = "/dev/null") throws -> ChildProcess {
        let child = try ChildProcess(executable, arguments, environment: environment.merging(extra) { $1 }, in: folder, standardInput: standardInput)
        children.append(child)
        return child
    }

    /// A file of Tests/ListenScenarios, shared with scripts/measure/listen.py.
    public static func scenario(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../ListenScenarios/\(name)").standardized.path
    }

    // MARK: The notification server

    /// The test's notification server, compiled once per test run.
    public static let fakeServer: Result<String, Error> = Result {
        let output = NSTemporaryDirectory() + "noti-play-fake-notification-server-\(getpid())"
        let source = scenario("fake-notification-server.c")
        let result = try TestTools.run("cc", ["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-o", output, source, "-lsystemd"])
        guard result.status == 0 else { throw RigFailure("cc fake-notification-server.c", result.stderr) }
        return output
    }

    public final class Server {
        public let process: ChildProcess
        private let commands: Int32
        init(process: ChildProcess, commands: Int32) { (self.process, self.commands) = (process, commands) }

        /// Sends one command line (`close ID`, `dnd on`, `quit`) and waits for its `ok`.
        public func send(_ command: String) throws {
            let before = process.stdout.components(separatedBy: "\n").filter { $0 == "ok" }.count
            let line = Array((command + "\n").utf8)
            guard write(commands, line, line.count) == line.count else { throw RigFailure(command, "cannot write to the server") }
            guard command != "quit" else { process.wait(); return }
            try waitUntil("the server's ok for '\(command)'", timeout: 10) {
                self.process.stdout.components(separatedBy: "\n").filter { $0 == "ok" }.count > before
            }
        }
    }

    /// Starts the test's notification server with `capabilities`; with `swaync`, it also plays
    /// swaync's part (its do-not-disturb state).
    public func startServer(capabilities: String = "body", swaync: Bool = false) throws -> Server {
        let fifo = folder.file("server-\(UUID().uuidString).in")
        guard mkfifo(fifo, 0o600) == 0 else { throw RigFailure("mkfifo", String(cString: strerror(errno))) }
        // Open for reading and writing: it never blocks, and the server never sees end-of-file.
        let writer = open(fifo, O_RDWR | O_CLOEXEC)
        commandWriters.append(writer)
        let process = try spawn(try Self.fakeServer.get(), ["--capabilities", capabilities] + (swaync ? ["--swaync"] : []), standardInput: fifo)
        try waitUntil("the notification server's ready", timeout: 10) { process.stdout.hasPrefix("ready") || process.poll() != nil }
        guard process.stdout.hasPrefix("ready") else { throw RigFailure("fake-notification-server", process.stderr) }
        return Server(process: process, commands: writer)
    }

    // MARK: The listener

    /// Starts `noti-play listen` with `arguments`, and waits until it has heard the server's
    /// capabilities (or, without a server, until it listens). `command` runs noti-play: the
    /// built one, or an installed one in another mount namespace (`nsenter … /usr/bin/noti-play`).
    public func startListener(_ arguments: [String] = [], environment extra: [String: String] = [:], server: Bool = true,
                              command: [String] = [TestTools.notiPlay]) throws -> ChildProcess {
        let listener = try spawn(command[0], Array(command.dropFirst()) + ["listen", "--verbose"] + arguments, environment: extra)
        try waitUntil("the listener to start", timeout: 10) {
            listener.poll() != nil || (server ? listener.stderr.contains("the notification server plays") : listener.stderr.contains("listening to notifications"))
        }
        guard listener.poll() == nil else { throw RigFailure("noti-play listen", listener.stderr) }
        return listener
    }

    /// Starts `noti-play listen --verbose` with its stderr `standardError`, a pipe the test reads
    /// only when it chooses, and waits (reading it) until it has heard the server's capabilities.
    public func startListener(_ arguments: [String] = [], standardError: UnreadPipe) throws -> ChildProcess {
        // The shell opens the FIFO as the listener's fd 2, then becomes the listener (same pid).
        let listener = try spawn("/bin/sh", ["-c", "exec \"$0\" \"$@\" 2>\"$LISTEN_STDERR\"", TestTools.notiPlay, "listen", "--verbose"] + arguments,
                                 environment: ["LISTEN_STDERR": standardError.path])
        try waitUntil("the listener to start", timeout: 10) {
            listener.poll() != nil || standardError.read().contains("the notification server plays")
        }
        guard listener.poll() == nil else { throw RigFailure("noti-play listen", standardError.text) }
        return listener
    }

    /// Runs `busctl ARGUMENTS` `count` times, one call after the other, from one shell: faster
    /// than a process of the test's per call, and nothing of the answer is needed
    /// (`call --expect-reply=no`).
    public func busctl(_ count: Int, _ arguments: [String]) throws {
        let loop = "n=$1; shift; i=0; while [ $i -lt $n ]; do busctl \"$@\" || exit 1; i=$((i+1)); done"
        let result = try TestTools.run("/bin/sh", ["-c", loop, "sh", String(count), "--address=" + address] + arguments, environment: environment)
        guard result.status == 0 else { throw RigFailure("busctl \(arguments)", result.stderr) }
    }

    /// A Notify call through busctl, not waiting for the server's reply: `hints` are busctl's
    /// a{sv} arguments after the count (`["urgency", "y", "2"]` is one hint).
    public static func notifyCall(app: String, hints: [[String]]) -> [String] {
        ["call", "--expect-reply=no", "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
         "org.freedesktop.Notifications", "Notify", "susssasa{sv}i", app, "0", "", "summary", "body", "0", String(hints.count)]
            + hints.joined() + ["5000"]
    }

    /// Sends a notification with the real notify-send; returns the id the server gave it.
    @discardableResult
    public func notifySend(_ arguments: [String]) throws -> UInt32 {
        let result = try TestTools.run("notify-send", ["--print-id"] + arguments + ["summary"], environment: environment)
        guard result.status == 0, let id = UInt32(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw RigFailure("notify-send \(arguments)", result.stderr + result.stdoutText)
        }
        return id
    }

    /// A raw call on the bus with gdbus (which sends whatever types it is given).
    @discardableResult
    public func gdbus(_ method: String, _ arguments: [String]) throws -> ProcessResult {
        try TestTools.run("gdbus", ["call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                                    "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications." + method] + arguments,
                          environment: environment)
    }
}

/// A FIFO held open for reading and writing by the test, as a process's stderr: a pipe of one
/// page (4 KiB, the least Linux gives) that nobody reads until `read()` is called, so that a
/// few dozen lines fill it and the next write blocks.
public final class UnreadPipe {
    public let path: String
    private let descriptor: Int32
    /// Everything `read()` has read so far.
    public private(set) var text = ""

    public init(in folder: TemporaryDirectory, name: String = "stderr.fifo") throws {
        path = folder.file(name)
        guard mkfifo(path, 0o600) == 0 else { throw RigFailure("mkfifo \(path)", String(cString: strerror(errno))) }
        // Read and write: the open never waits for a writer, and the pipe never reads as ended.
        descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw RigFailure("open \(path)", String(cString: strerror(errno))) }
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ (Linux)
        guard fcntl(descriptor, setPipeSize, 4096) >= 0 else { throw RigFailure("F_SETPIPE_SZ", String(cString: strerror(errno))) }
    }

    deinit { close(descriptor) }

    /// Reads what the pipe holds now (never waits); returns all that was read so far.
    @discardableResult
    public func read() -> String {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var bytes: [UInt8] = []
        while case let n = Foundation.read(descriptor, &chunk, chunk.count), n > 0 { bytes += chunk[0..<n] }
        text += String(decoding: bytes, as: UTF8.self)
        return text
    }

    /// The lines read so far, without the "noti-play listen: " prefix.
    public var logLines: [String] {
        text.split(separator: "\n").map { String($0.hasPrefix("noti-play listen: ") ? $0.dropFirst(18) : $0[...]) }
    }
}

/// Polls `condition` every 10 ms until it holds; fails the wait (throws) after `timeout` seconds.
/// The timeouts are far beyond what the awaited thing takes: they only end a test that would
/// otherwise hang.
public func waitUntil(_ what: String, timeout: Double, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { throw RigFailure("waiting for \(what)", "not within \(timeout) s") }
        usleep(10_000)
    }
}

/// Whether a connection to the Unix socket at `path` is taken. A server's socket file exists from
/// its bind(2), before its listen(2): on a busy machine a client that came in between was refused.
public func unixSocketAccepts(_ path: String) -> Bool {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
    }
}

extension ChildProcess {
    /// The listener's log lines, without the "noti-play listen: " prefix.
    public var logLines: [String] {
        stderr.split(separator: "\n").map { String($0.hasPrefix("noti-play listen: ") ? $0.dropFirst(18) : $0[...]) }
    }

    /// Waits for a log line containing `text` after the first `after` lines; returns its index.
    @discardableResult
    public func waitForLog(_ text: String, after: Int = 0, timeout: Double = 10) throws -> Int {
        var found: Int?
        try waitUntil("'\(text)' in the listener's log:\n\(stderr)", timeout: timeout) {
            found = logLines.enumerated().dropFirst(after).first { $0.element.contains(text) }?.offset
            return found != nil
        }
        return found!
    }
}

/// A 16-bit WAV of `frames` frames, every sample `level` (a fraction of full scale, exact in
/// 16 bits and in the device's float format), so that the tap shows which sound played.
public func writeLevelWAV(_ path: String, level: Double, frames: Int = 2205, channels: Int = 1, rate: Int = 44100) throws {
    var data = Data()
    func le32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
    func le16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { data.append(contentsOf: $0) } }
    let bytes = frames * channels * 2
    data.append(contentsOf: Array("RIFF".utf8)); le32(36 + bytes); data.append(contentsOf: Array("WAVEfmt ".utf8))
    le32(16); le16(1); le16(channels); le32(rate); le32(rate * channels * 2); le16(channels * 2); le16(16)
    data.append(contentsOf: Array("data".utf8)); le32(bytes)
    let sample = Int(level * 32768)
    for _ in 0..<(frames * channels) { le16(sample) }
    try data.write(to: URL(fileURLWithPath: path))
}

extension ALSATap {
    /// How many samples of each level reached the device (its format is FLOAT, the best the
    /// null device takes).
    public func levels() throws -> [Float: Int] {
        let bytes = (try? captured()) ?? []
        var counts: [Float: Int] = [:]
        bytes.withUnsafeBytes { raw in
            for sample in raw.bindMemory(to: Float.self) where sample != 0 { counts[sample, default: 0] += 1 }
        }
        return counts
    }
}

/// A part of the session that did not do what the test needs (it did not start, a wait ran out).
public struct RigFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ what: String, _ why: String) { description = "\(what): \(why)" }
}
