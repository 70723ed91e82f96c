import Foundation

/// A private, headless PipeWire as a desktop runs it: its own runtime folder and session bus,
/// `pipewire`, then `wireplumber` (which links streams to sinks) and `pipewire-pulse`, with a
/// null sink (`noti_null`, stereo) from a drop-in in its own configuration folder. A real clock
/// (the graph's, 48 kHz), a monitor to record what the sink played (`parec`), a server a test may
/// kill and start again, and ALSA's `default` reaching it through pipewire-alsa's plugin.
///
/// One per test (its deinit stops everything it started): a test that kills the server
/// disturbs no other.
public final class PipeWireServer: @unchecked Sendable {
    public let folder = TemporaryDirectory("pipewire")
    public let sinkName = "noti_null"
    public var runtimeDirectory: String { folder.file("run") }
    /// The server's socket, for a client in the test's own process (`PCMBackend.pipeWire(remote:)`):
    /// an absolute path, so that the process's environment need not name the rig.
    public var socketPath: String { folder.file("run/pipewire-0") }
    public var busAddress: String { "unix:path=" + folder.file("bus") }
    /// ALSA's configuration for clients: alsa.conf, whose hook reads only the rig's conf.d, where
    /// `default` is pipewire-alsa's plugin on this server (see `writeALSAConfiguration`).
    public var alsaConfigPath: String { folder.file("alsa/alsa.conf") }

    /// The server itself, while it runs.
    public private(set) var daemon: ChildProcess?
    private var bus: ChildProcess?
    private var services: [ChildProcess] = []

    public init() throws {
        for sub in ["run", "config/pipewire/pipewire.conf.d", "state", "alsa/conf.d"] {
            try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: true)
        }
        chmod(runtimeDirectory, 0o700)
        // object.linger: the sink stays when the client that made it (the server) goes.
        try """
            context.objects = [
                { factory = adapter
                    args = {
                        factory.name = support.null-audio-sink
                        node.name = \(sinkName)
                        node.description = "noti-play test sink"
                        media.class = Audio/Sink
                        audio.position = [ FL FR ]
                        object.linger = true
                    }
                }
            ]
            """.write(toFile: folder.file("config/pipewire/pipewire.conf.d/90-noti-null-sink.conf"), atomically: true, encoding: .utf8)
        try writeALSAConfiguration()
        let busConfig = try String(contentsOfFile: ListenRig.scenario("private-session-bus.conf"), encoding: .utf8)
            .replacingOccurrences(of: "@SOCKET@", with: folder.file("bus"))
        try busConfig.write(toFile: folder.file("bus.conf"), atomically: true, encoding: .utf8)
        bus = try ChildProcess("dbus-daemon", ["--config-file=" + folder.file("bus.conf"), "--nofork", "--nopidfile"], in: folder)
        try waitUntil("the session bus to take connections", timeout: 10) { unixSocketAccepts(self.folder.file("bus")) }
        try start()
    }

    deinit {
        stop(SIGKILL)
        bus?.signal(SIGKILL)
        bus?.wait()
    }

    /// For processes that play through this server, natively, through pipewire-pulse or through ALSA.
    public var environment: [String: String] {
        [
            "XDG_RUNTIME_DIR": runtimeDirectory, "PIPEWIRE_RUNTIME_DIR": runtimeDirectory,
            "PULSE_SERVER": "unix:" + folder.file("run/pulse/native"), "DBUS_SESSION_BUS_ADDRESS": busAddress,
            "ALSA_CONFIG_PATH": alsaConfigPath, "XDG_CONFIG_HOME": folder.file("config"),
            // libpulse's cookie and wireplumber's state stay in the rig's folder.
            "XDG_STATE_HOME": folder.file("state"), "HOME": folder.path,
        ]
    }

    /// Starts the server, its session manager and its PulseAudio service, and returns once
    /// `pactl info` names the service and the null sink as the default.
    public func start() throws {
        unlink(folder.file("run/pipewire-0"))
        daemon = try ChildProcess("pipewire", [], environment: environment, in: folder)
        try waitUntil("pipewire's socket", timeout: 10) {
            FileManager.default.fileExists(atPath: self.folder.file("run/pipewire-0")) || self.daemon?.poll() != nil
        }
        services = [
            try ChildProcess("wireplumber", [], environment: environment, in: folder),
            try ChildProcess("pipewire-pulse", [], environment: environment, in: folder),
        ]
        var info = ""
        try waitUntil("pactl info to name PipeWire and its null sink", timeout: 15) {
            info = (try? TestTools.run("pactl", ["info"], environment: self.environment).stdoutText) ?? ""
            return (info.contains("Server Name: PulseAudio (on PipeWire") && info.contains("Default Sink: \(self.sinkName)\n"))
                || self.daemon?.poll() != nil
        }
        guard daemon?.poll() == nil else { throw RigFailure("pipewire", daemon?.stderr ?? "") }
    }

    /// Kills the server alone, as a crash does, and waits until it is gone.
    public func killServer() {
        daemon?.signal(SIGKILL)
        daemon?.wait()
        daemon = nil
    }

    /// Ends the server with `signal` (SIGKILL: as a crash), then its session manager and PulseAudio
    /// service, which would otherwise outlive it; waits for all three.
    public func stop(_ signal: Int32 = SIGTERM) {
        daemon?.signal(signal)
        daemon?.wait()
        daemon = nil
        for service in services {
            service.signal(SIGKILL)
            service.wait()
        }
        services = []
    }

    /// `pw-dump`: every object of the server, as JSON.
    public func dump() throws -> [[String: Any]] {
        let result = try TestTools.run("pw-dump", [], environment: environment)
        guard result.status == 0, let objects = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]] else {
            throw RigFailure("pw-dump", result.stderr)
        }
        return objects
    }

    /// The properties of the nodes whose `key` property is `value` (`node.name`, `application.id`).
    public func nodeProperties(where key: String, is value: String) throws -> [[String: Any]] {
        try dump().compactMap { object in
            guard object["type"] as? String == "PipeWire:Interface:Node",
                  let props = (object["info"] as? [String: Any])?["props"] as? [String: Any],
                  props[key] as? String == value else { return nil }
            return props
        }
    }

    /// Sets the server's runtime setting `key` (`clock.force-rate`, `clock.force-quantum`).
    public func setSetting(_ key: String, _ value: String) throws {
        let result = try TestTools.run("pw-metadata", ["-n", "settings", "0", key, value], environment: environment)
        guard result.status == 0 else { throw RigFailure("pw-metadata \(key) \(value)", result.stderr) }
    }

    /// Records the null sink's monitor as interleaved S16 stereo at 48 kHz while `body` runs, then
    /// `tail` seconds longer. `latencyMilliseconds`: what parec asks for, which sets the graph's
    /// cycle (the shortest any client asks for).
    public func record(latencyMilliseconds: Int = 10, tail: TimeInterval = 0.3, during body: () throws -> Void) throws -> [Int16] {
        try record(latencyMilliseconds: latencyMilliseconds, tail: tail, marking: { _ in try body() })
    }

    /// The same, and `body` may ask how many frames parec has written so far: a mark in the
    /// recording for a moment of the test's (a little early: parec writes a fragment behind).
    public func record(latencyMilliseconds: Int = 10, tail: TimeInterval = 0.3, marking body: (_ framesSoFar: () -> Int) throws -> Void) throws -> [Int16] {
        let output = folder.file("capture-\(UUID().uuidString).raw")
        let recorder = try ChildProcess("parec", [
            "--device=\(sinkName).monitor", "--format=s16le", "--rate=48000", "--channels=2",
            "--latency-msec=\(latencyMilliseconds)", "--raw", output,
        ], environment: environment, in: folder)
        defer { recorder.signal(SIGINT); recorder.wait() }
        // The monitor delivers silence as long as the graph runs: once the file grows, the
        // recording has started.
        do {
            try waitUntil("parec to record", timeout: 10) {
                var status = stat()
                return (stat(output, &status) == 0 && status.st_size > 0) || recorder.poll() != nil
            }
        } catch {
            throw RigFailure("parec recorded nothing", recorder.stderr)
        }
        guard recorder.poll() == nil else { throw RigFailure("parec", recorder.stderr) }
        try body {
            var status = stat()
            return stat(output, &status) == 0 ? Int(status.st_size) / 4 : 0
        }
        usleep(useconds_t(tail * 1_000_000))
        recorder.signal(SIGINT)
        recorder.wait()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    // MARK: ALSA through pipewire-alsa

    /// pipewire-alsa's files for the installed PipeWire, fetched once with `apt-get download` and
    /// extracted into the build folder (.build/pipewire-alsa-VERSION/): the package itself must not
    /// be installed, since its 99-pipewire-default.conf would make PipeWire the machine's ALSA
    /// default (and it conflicts with pulseaudio, which other tests run).
    public static let pipeWireALSA: Result<String, Error> = Result {
        let version = try TestTools.run("dpkg-query", ["-W", "-f=${Version}", "libpipewire-0.3-0"]).stdoutText
        guard !version.isEmpty else { throw RigFailure("dpkg-query libpipewire-0.3-0", "not installed") }
        let folder = Repository.path + "/.build/pipewire-alsa-" + version
        if FileManager.default.fileExists(atPath: folder + "/root") { return folder + "/root" }
        let download = folder + ".download-\(getpid())"
        try? FileManager.default.removeItem(atPath: download)
        try FileManager.default.createDirectory(atPath: download, withIntermediateDirectories: true)
        let fetched = try TestTools.run("sh", ["-c", "cd \"$1\" && apt-get download \"pipewire-alsa=$2\"", "sh", download, version])
        let package = try FileManager.default.contentsOfDirectory(atPath: download).first { $0.hasSuffix(".deb") }
        guard fetched.status == 0, let package else { throw RigFailure("apt-get download pipewire-alsa=\(version)", fetched.stderr) }
        let extracted = try TestTools.run("dpkg-deb", ["-x", download + "/" + package, download + "/root"])
        guard extracted.status == 0 else { throw RigFailure("dpkg-deb -x \(package)", extracted.stderr) }
        // Another test process may have been first: its copy is as good.
        if (try? FileManager.default.moveItem(atPath: download, toPath: folder)) == nil { try? FileManager.default.removeItem(atPath: download) }
        return folder + "/root"
    }

    /// alsa.conf as ALSA's own, except that its hook loads the rig's conf.d instead of the
    /// machine's (whose 99-pulse.conf, with a pulse server answering, would set `default` back to
    /// pulse after anything ALSA_CONFIG_PATH says); there, pipewire-alsa's definitions, its
    /// plugin loaded by path, and `default` on this server.
    private func writeALSAConfiguration() throws {
        let system = try String(contentsOfFile: "/usr/share/alsa/alsa.conf", encoding: .utf8)
        guard let hooks = system.range(of: "\n@hooks ["), let end = Self.closingBracket(in: system, from: hooks.upperBound) else {
            throw RigFailure("/usr/share/alsa/alsa.conf", "has no top-level @hooks block")
        }
        let ownHooks = "\n@hooks [\n\t{\n\t\tfunc load\n\t\tfiles [ \"\(folder.file("alsa/conf.d"))\" ]\n\t\terrors false\n\t}\n]"
        try (String(system[..<hooks.lowerBound]) + ownHooks + String(system[end...]))
            .write(toFile: alsaConfigPath, atomically: true, encoding: .utf8)
        guard let root = try? Self.pipeWireALSA.get() else { return }  // the ALSA route is then missing: its test says so
        let enumerator = FileManager.default.enumerator(atPath: root)
        var plugins: [String: String] = [:]
        while let file = enumerator?.nextObject() as? String {
            if file.hasSuffix("libasound_module_pcm_pipewire.so") { plugins["pcm"] = root + "/" + file }
            if file.hasSuffix("libasound_module_ctl_pipewire.so") { plugins["ctl"] = root + "/" + file }
        }
        let definitions = try String(contentsOfFile: root + "/usr/share/alsa/alsa.conf.d/50-pipewire.conf", encoding: .utf8)
        try definitions.write(toFile: folder.file("alsa/conf.d/50-pipewire.conf"), atomically: true, encoding: .utf8)
        try """
            pcm_type.pipewire { lib "\(plugins["pcm"] ?? "")" }
            ctl_type.pipewire { lib "\(plugins["ctl"] ?? "")" }
            pcm.!default { type pipewire playback_node "-1" capture_node "-1" hint { show on description "PipeWire (noti-play test rig)" } }
            ctl.!default { type pipewire }
            """.write(toFile: folder.file("alsa/conf.d/99-rig-default.conf"), atomically: true, encoding: .utf8)
    }

    /// The index just past the `]` that closes the `[` before `start`.
    private static func closingBracket(in text: String, from start: String.Index) -> String.Index? {
        var depth = 1
        var index = start
        while index < text.endIndex {
            switch text[index] {
            case "[": depth += 1
            case "]":
                depth -= 1
                if depth == 0 { return text.index(after: index) }
            default: break
            }
            index = text.index(after: index)
        }
        return nil
    }
}
