import Foundation
import NotiPlayTestSupport
import Testing

/// `noti-play listen` on a private session bus with real clients (notify-send, gdbus), a real
/// notification server (the test's own on sd-bus, or dunst under Xvfb) and the ALSA tap or a
/// PulseAudio null sink: what plays is read back from the device.
@Suite(.serialized) struct ListenTests {
    let rig: ListenRig

    init() throws { rig = try ListenRig() }

    /// Every hint, read back at the device: each sound is a constant level of its own.
    @Test func eachHintPlaysTheSoundItAsksFor() throws {
        let file = rig.folder.file("alert.wav"), critical = rig.folder.file("alarm.wav")
        try writeLevelWAV(file, level: 0.25)
        try writeLevelWAV(critical, level: 0.625)
        try writeLevelWAV(rig.folder.file("data/noti-play/apps/org.example.Chat/sounds/ping.wav"), level: 0.375)
        try writeLevelWAV(rig.folder.file("data/sounds/freedesktop/stereo/message-new-instant.wav"), level: 0.5)
        _ = try rig.startServer()
        let listener = try rig.startListener(["--interval", "0"])

        func send(_ hints: [String], expect outcome: String) throws {
            let lines = listener.logLines.count
            try rig.notifySend(hints)
            try listener.waitForLog(outcome, after: lines)
        }
        try send(["-h", "string:sound-file:\(file)"], expect: "finished")
        try send(["-h", "string:desktop-entry:org.example.Chat", "-h", "string:sound-name:ping.wav"], expect: "finished")
        try send(["-h", "string:sound-name:message-new-instant"], expect: "finished")
        try send(["-h", "string:category:im.received"], expect: "finished")
        try send(["-h", "boolean:suppress-sound:true", "-h", "string:sound-file:\(file)"], expect: "no sound: suppress-sound")
        try send(["-u", "critical", "-h", "string:sound-file:file://\(critical)"], expect: "finished")
        #expect(listener.logLines.contains { $0.hasSuffix("plays \(critical) (critical, volume 1.0)") })
        // An update (replaces_id) is silent unless it names its own sound.
        let updated = try rig.notifySend(["-a", "progress"])
        try listener.waitForLog("progress: finished")
        try send(["-a", "progress", "-r", "\(updated)"], expect: "progress: no sound: an update of a notification names no sound of its own")
        // The last: the file plugin writes a sound's last buffer when the next sound pushes it out.
        try send([], expect: "finished")
        #expect(listener.logLines.contains("notify-send: plays the default sound"))

        let levels = try rig.tap.levels()
        let channels = (levels[0.25] ?? 0) / 2205
        #expect([1, 2].contains(channels), "the sound-file, once (suppress-sound played nothing): \(levels)")
        #expect(levels[0.375] == 2205 * channels, "sound-name: the file in the app's folder")
        #expect(levels[0.5] == 2 * 2205 * channels, "sound-name and category im.received: the theme's message-new-instant")
        #expect(levels[0.625] == 2205 * channels, "urgency 2: the critical sound at its exact level")
        #expect(levels.count > 4, "the bundled default sound reached the device too")
    }

    /// With do-not-disturb on, a normal notification gives `silence` and a critical one plays;
    /// off again, the normal one plays.
    func expectOnlyCriticalSounds(_ listener: ChildProcess, turnOn: () throws -> Void, on: String, silence: String,
                                  turnOff: () throws -> Void, off: String) throws {
        try turnOn()
        try listener.waitForLog(on)
        var lines = listener.logLines.count
        try rig.notifySend(["-a", "chat"])
        try listener.waitForLog("chat: no sound: " + silence, after: lines)
        try rig.notifySend(["-a", "alarm", "-u", "critical"])
        try listener.waitForLog("alarm: finished", after: lines)
        try turnOff()
        try listener.waitForLog(off)
        lines = listener.logLines.count
        try rig.notifySend(["-a", "chat"])
        try listener.waitForLog("chat: finished", after: lines)
    }

    @Test func dunstPausedLetsOnlyCriticalSoundsThrough() throws {
        try "[global]\n".write(toFile: rig.folder.file("dunstrc"), atomically: true, encoding: .utf8)
        // dunst, the real notification daemon, on a virtual X display of its own (Xvfb picks a
        // free display and writes its number to standard output).
        let display = try rig.spawn("Xvfb", ["-displayfd", "1", "-nolisten", "tcp"])
        try waitUntil("Xvfb's display", timeout: 20) { display.stdout.hasSuffix("\n") || display.poll() != nil }
        let number = try #require(Int(display.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "Xvfb: \(display.stderr)")
        _ = try rig.spawn("dunst", ["-config", rig.folder.file("dunstrc")], environment: ["DISPLAY": ":\(number)"])
        try waitUntil("dunst to own org.freedesktop.Notifications", timeout: 20) {
            try TestTools.run("dunstctl", ["is-paused"], environment: rig.environment).status == 0
        }
        let listener = try rig.startListener(["--interval", "0"])
        func dunstctl(_ arguments: String...) throws {
            let result = try TestTools.run("dunstctl", arguments, environment: rig.environment)
            #expect(result.status == 0, "dunstctl \(arguments): \(result.stderr)")
        }
        try expectOnlyCriticalSounds(
            listener,
            turnOn: { try dunstctl("set-paused", "true") },
            on: "dunst paused", silence: "dunst is paused",
            turnOff: { try dunstctl("set-paused", "false") },
            off: "dunst resumed")
    }

    @Test func swayncDoNotDisturbLetsOnlyCriticalSoundsThrough() throws {
        let server = try rig.startServer(swaync: true)
        let listener = try rig.startListener(["--interval", "0"])
        try expectOnlyCriticalSounds(
            listener, turnOn: { try server.send("dnd on") }, on: "swaync's do not disturb is on",
            silence: "swaync's do not disturb is on",
            turnOff: { try server.send("dnd off") }, off: "swaync's do not disturb is off")
    }

    @Test func aServerThatPlaysSoundsKeepsListenQuietUntilAnotherTakesOver() throws {
        let server = try rig.startServer(capabilities: "body,sound")
        let listener = try rig.startListener()
        let always = try rig.startListener(["--always"])
        try listener.waitForLog("the notification server plays sounds itself: listen stays quiet")
        try rig.notifySend(["-a", "chat"])
        try listener.waitForLog("chat: no sound: the notification server plays its own sounds")
        try always.waitForLog("chat: finished")

        // Another server without sounds takes the name over: listen asks again.
        try server.send("quit")
        try listener.waitForLog("the notification server stopped")
        _ = try rig.startServer(capabilities: "body")
        try listener.waitForLog("the notification server plays no sounds: listen plays them")
        try rig.notifySend(["-a", "mail"])
        try listener.waitForLog("mail: finished")
    }

    /// 51 notifications as fast as notify-send sends them: one sound per app per interval, at
    /// most --burst-limit in all, and the critical one always.
    @Test func aBurstIsNotFiftySounds() throws {
        _ = try rig.startServer()
        let listener = try rig.startListener(["--interval", "60"])
        let lines = listener.logLines.count
        for n in 0..<40 { try rig.notifySend(["-a", "spam", "n\(n)"]) }
        for n in 0..<10 { try rig.notifySend(["-a", "app\(n)"]) }
        try rig.notifySend(["-a", "spam", "-u", "critical"])
        try waitUntil("51 decisions", timeout: 20) {
            listener.logLines.dropFirst(lines).filter { $0.contains(": plays ") || $0.contains(": no sound: ") }.count == 51
        }
        let played = listener.logLines.dropFirst(lines).filter { $0.contains(": plays ") }
        #expect(played == ["spam: plays the default sound", "app0: plays the default sound", "app1: plays the default sound",
                           "spam: plays the default critical sound (critical, volume 1.0)"])
    }

    /// A call rings until its notification is closed (by the server's signal, or a client's
    /// CloseNotification), or for 30 s; an update of the ringing notification keeps it ringing.
    /// A real clock (a PulseAudio null sink): a looping sound on the clockless tap would spin.
    @Test func aRingtoneRingsUntilItsNotificationIsClosed() throws {
        let pulse = try PulseServer.makePrivate()
        let server = try rig.startServer()
        let audio = pulse.environment.filter { $0.key != "DBUS_SESSION_BUS_ADDRESS" }
        let listener = try rig.startListener(["--interval", "0"], environment: audio)

        let first = try rig.notifySend(["-a", "phone", "-h", "string:category:call.incoming"])
        try listener.waitForLog("phone: plays theme sound 'phone-incoming-call' (ringtone)")
        let lines = listener.logLines.count
        try rig.notifySend(["-a", "phone", "-r", "\(first)", "-h", "string:category:call.incoming", "still ringing"])
        usleep(1_000_000)
        #expect(listener.logLines.dropFirst(lines).allSatisfy { !$0.contains("phone: ") }, "the update neither stopped nor restarted it")
        try server.send("close \(first)")
        try listener.waitForLog("phone: cancelled", after: lines)
        // A new call in the closed call's slot (replaces_id of a closed notification) rings.
        let again = listener.logLines.count
        try rig.notifySend(["-a", "phone", "-r", "\(first)", "-h", "string:category:call.incoming", "again"])
        try listener.waitForLog("phone: plays theme sound 'phone-incoming-call' (ringtone)", after: again)
        try server.send("close \(first)")
        try listener.waitForLog("phone: cancelled", after: again)

        let second = try rig.notifySend(["-a", "voip", "-h", "boolean:x-noti-play-ringtone:true"])
        try listener.waitForLog("voip: plays the default ringtone")
        try rig.gdbus("CloseNotification", ["\(second)"])
        try listener.waitForLog("voip: cancelled")

        let started = Date()
        try rig.notifySend(["-a", "forgotten", "-h", "string:category:call"])
        // The player's ring cap ends it: a ringtone that rang its cap has `finished`.
        try listener.waitForLog("forgotten: finished", timeout: 45)
        let rang = Date().timeIntervalSince(started)
        #expect(rang >= 29.9, "a ringtone nobody closes rings its 30 s (it rang \(rang) s)")
    }

    /// `listen` (the library) plays a PulseAudio server directly, and its stream says what it
    /// is in the stream's own properties, not only where the environment says so: an event
    /// sound of noti-play's, which the desktop's alert volume and role rules apply to.
    @Test func theLibrarysStreamIsAnEventOnPulseAudio() throws {
        let pulse = try PulseServer.makePrivate()
        _ = try rig.startServer()
        let audio = pulse.environment.filter { $0.key != "DBUS_SESSION_BUS_ADDRESS" }
        let listener = try rig.startListener(["--interval", "0"], environment: audio)
        // At 48 kHz, where the server runs at 44.1 (PulseAudio's default).
        let sound = rig.folder.file("event-48k.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", sound, "synth", "3", "sine", "440", "vol", "0.3"])
        try rig.notifySend(["-a", "chat", "-h", "string:sound-file:\(sound)"])
        try listener.waitForLog("chat: plays")
        var properties = ""
        try waitUntil("a sink input with properties", timeout: 10) {
            properties = (try? TestTools.run("pactl", ["list", "sink-inputs"], environment: pulse.environment).stdoutText) ?? ""
            return properties.contains("media.role")
        }
        try listener.waitForLog("chat: finished")
        #expect(properties.contains("media.role = \"event\""), "\(properties)")
        #expect(properties.contains("application.id = \"noti-play\""), "\(properties)")
        #expect(properties.contains("application.name = \"noti-play\""), "\(properties)")
        // Not the pulse plugin's stream ("ALSA Playback"): noti-play's own, on the server directly.
        #expect(!properties.contains("ALSA plug-in"), "\(properties)")
        // At the server's own rate, not the first sound's: the server converts nothing again.
        #expect(properties.contains(" 44100Hz"), "\(properties)")
    }

    @Test func hostileNotificationsNeitherCrashNorBlockTheListener() throws {
        _ = try rig.startServer()
        let listener = try rig.startListener(["--interval", "0"])
        let fifo = rig.folder.file("sound.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let notify = { (hints: String) throws in
            try rig.gdbus("Notify", ["evil", "0", "", "s", "b", "[]", hints, "5000"])
        }
        // Wrong argument types: the server refuses it; listen says so and goes on.
        try rig.gdbus("Notify", ["evil", "0", "x"])
        try listener.waitForLog("ignored a Notify call from")
        // A Notify sent to another name reaches no notification server: no sound.
        let elsewhere = try TestTools.run("gdbus", ["call", "--session", "--dest", "org.example.Nobody", "--object-path",
            "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.Notify",
            "ghost", "0", "", "s", "b", "[]", "{}", "5000"], environment: rig.environment)
        #expect(elsewhere.status != 0)
        // Hints of the wrong types are not hints: the default sound.
        var lines = listener.logLines.count
        try notify("{'sound-name': <5>, 'urgency': <'high'>, 'suppress-sound': <'yes'>}")
        try listener.waitForLog("evil: plays the default sound", after: lines)
        try listener.waitForLog("evil: finished", after: lines)
        for (hint, outcome) in [
            ("{'sound-file': <'\(fifo)'>}", "is a FIFO, not a regular file"),
            ("{'sound-file': <'/dev/zero'>}", "is a device, not a regular file"),
            ("{'sound-file': <'Sounds/default.caf'>}", "must be an absolute path"),
            ("{'sound-file': <'/tmp/../etc/passwd'>}", "not a WAV, AIFF or CAF file"),
            ("{'sound-name': <'../../../etc/passwd'>}", "the default sound plays instead"),
            ("{'sound-name': <'\(String(repeating: "n", count: 100_000))'>}", "the default sound plays instead"),
            ("{'sound-file': <'/\(String(repeating: "d/", count: 50_000))x.wav'>}", "evil: no sound:"),
        ] {
            lines = listener.logLines.count
            try notify(hint)
            try listener.waitForLog(outcome, after: lines)
        }
        // Thousands of hints: the first 4,096 are read, the rest skipped.
        let many = (0..<5000).map { "'x-\($0)': <\($0)>" }.joined(separator: ", ")
        lines = listener.logLines.count
        try notify("{'category': <'im.received'>, \(many)}")
        try listener.waitForLog("evil: plays theme sound 'message-new-instant'", after: lines)
        // Still listening, and still playing.
        lines = listener.logLines.count
        try rig.notifySend(["-a", "fine"])
        try listener.waitForLog("fine: finished", after: lines)
        #expect(listener.poll() == nil)
        #expect(!listener.logLines.contains { $0.hasPrefix("ghost:") }, "a call to another name played")
    }

    /// Issue 24: `notify-send -h string:sound-file:…/sounds/freedesktop/stereo/bell.oga` rings the
    /// theme's bell (a sound-file inside a sound theme folder may be Ogg, as the theme's sounds
    /// are); the same Ogg elsewhere, or reached through a link in the theme folder, is refused.
    @Test func anOggSoundFileInsideASoundThemeFolderPlays() throws {
        let bell = "/usr/share/sounds/freedesktop/stereo/bell.oga"
        let theme = rig.folder.file("dirs/sounds/freedesktop/stereo"), elsewhere = rig.folder.file("elsewhere")
        for directory in [theme, elsewhere] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(atPath: bell, toPath: theme + "/bell.oga")
        try FileManager.default.copyItem(atPath: bell, toPath: elsewhere + "/bell.oga")
        try FileManager.default.createSymbolicLink(atPath: theme + "/link.oga", withDestinationPath: elsewhere + "/bell.oga")
        _ = try rig.startServer()
        let listener = try rig.startListener(["--interval", "0"])
        for (app, file, outcome) in [
            ("inside", theme + "/bell.oga", "inside: finished"),
            ("outside", elsewhere + "/bell.oga", "\(elsewhere)/bell.oga: not a WAV, AIFF or CAF file"),
            ("link", theme + "/link.oga", "\(theme)/link.oga: not a WAV, AIFF or CAF file"),
        ] {
            let lines = listener.logLines.count
            try rig.notifySend(["-a", app, "-h", "string:sound-file:\(file)"])
            try listener.waitForLog(outcome, after: lines)
        }
        #expect(!listener.logLines.contains { $0.hasPrefix("outside: finished") || $0.hasPrefix("link: finished") })
    }

    /// A critical notification whose sound cannot play: each is a failure line (and, with
    /// --verbose, a decision line), none of them rate-limited by the rules.
    static let failingCritical = ListenRig.notifyCall(app: "flood", hints: [["urgency", "y", "2"], ["sound-file", "s", "/nonexistent/flood.wav"]])

    /// stderr a pipe nobody reads, filled by a flood of failing critical notifications: SIGTERM
    /// still ends listen, with its status 0. (Before, its threads blocked writing to the pipe
    /// and the signal was never served: alive until SIGKILL.)
    @Test func aFullStandardErrorKeepsNoSignalFromBeingServed() throws {
        _ = try rig.startServer()
        let standardError = try UnreadPipe(in: rig.folder)
        let listener = try rig.startListener(["--interval", "0"], standardError: standardError)
        try rig.busctl(300, Self.failingCritical)
        listener.signal(SIGTERM)
        // Far beyond what the exit takes; it only tells "exited" from "never exits".
        try? waitUntil("listen to exit after SIGTERM", timeout: 10) { listener.poll() != nil }
        #expect(listener.poll() == 0, "still running 10 s after SIGTERM, its stderr full")
    }

    /// The lines that a full stderr could not take are dropped, and once it is read again a
    /// line says how many: every decision line of the flood was either shown or counted.
    @Test func linesAFullStandardErrorDroppedAreCountedOnceItIsReadAgain() throws {
        _ = try rig.startServer()
        let standardError = try UnreadPipe(in: rig.folder)
        let listener = try rig.startListener(["--interval", "0"], standardError: standardError)
        let flood = 300
        try rig.busctl(flood, Self.failingCritical)
        func dropped() -> Int {
            standardError.logLines.compactMap { line -> Int? in
                guard line.hasPrefix("("), line.hasSuffix(" dropped: standard error was full)") else { return nil }
                return Int(line.dropFirst().prefix { $0.isNumber })
            }.reduce(0, +)
        }
        func shown() -> Int { standardError.logLines.filter { $0.hasPrefix("flood: plays /nonexistent/flood.wav") }.count }
        try? waitUntil("the flood's lines to be shown or counted as dropped", timeout: 20) {
            standardError.read()
            return dropped() > 0 && shown() + dropped() >= flood
        }
        #expect(dropped() > 0, "no line said that lines were dropped: \(standardError.logLines.suffix(5))")
        #expect(shown() < flood && shown() + dropped() >= flood, "shown \(shown()), dropped \(dropped())")
        // And it still listens, and logs.
        let lines = standardError.logLines.count
        try rig.notifySend(["-a", "after"])
        try waitUntil("the next notification's line", timeout: 10) {
            standardError.read()
            return standardError.logLines.dropFirst(lines).contains("after: finished")
        }
        listener.signal(SIGTERM)
        #expect(listener.wait() == 0)
    }

    /// A flood of malformed calls is a few lines, and once it stops, one more line counts what
    /// the limit held back: the lines and their "(and N more)" account for every call. (Before,
    /// the count waited for the next malformed call, which may never come.)
    @Test func theCountOfHeldBackMalformedCallsIsLoggedWhenTheFloodStops() throws {
        _ = try rig.startServer()
        let listener = try rig.startListener(["--interval", "0"])
        let lines = listener.logLines.count
        let calls = 20
        try rig.busctl(calls, ["call", "--expect-reply=no", "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                               "org.freedesktop.Notifications", "Notify", "s", "not a notification"])
        func accounted() -> Int {
            listener.logLines.dropFirst(lines).filter { $0.hasPrefix("ignored a Notify call from ") }.map { line in
                guard let more = line.range(of: "(and ") else { return 1 }
                return 1 + (Int(line[more.upperBound...].prefix { $0.isNumber }) ?? 0)
            }.reduce(0, +)
        }
        try? waitUntil("every malformed call to be logged or counted", timeout: 10) { accounted() >= calls }
        #expect(accounted() == calls, "\(listener.logLines.dropFirst(lines))")
        #expect(listener.logLines.dropFirst(lines).count < calls, "rate-limited: fewer lines than calls")
    }

    @Test func aBusThatGoesAwayAndComesBackIsReconnected() throws {
        _ = try rig.startServer()
        let listener = try rig.startListener()
        rig.stopBus()
        try listener.waitForLog("lost the session bus")
        try rig.startBus()
        try listener.waitForLog("reconnected to the session bus")
        let lines = listener.logLines.count
        _ = try rig.startServer()
        try listener.waitForLog("the notification server plays no sounds", after: lines)
        try rig.notifySend(["-a", "back"])
        try listener.waitForLog("back: finished")
    }

    /// Idle, the listener sleeps: none of its threads runs while nothing happens. SIGHUP
    /// re-reads the configuration; SIGTERM ends it with status 0.
    @Test func idleItNeverWakesAndSignalsEndItCleanly() throws {
        _ = try rig.startServer()
        let listener = try rig.startListener()
        // Once its threads have started and gone to sleep (two looks 200 ms apart agree)...
        var previous = try Self.contextSwitches(listener.pid)
        try waitUntil("the listener's threads to settle", timeout: 10) {
            usleep(200_000)
            let current = try Self.contextSwitches(listener.pid)
            defer { previous = current }
            return current == previous
        }
        // ...none of them runs again while nothing happens.
        let before = try Self.contextSwitches(listener.pid)
        usleep(2_000_000)
        let after = try Self.contextSwitches(listener.pid)
        #expect(after == before, "threads woke while idle: \(before) → \(after) context switches")

        try FileManager.default.createDirectory(atPath: rig.folder.file("config/noti-play"), withIntermediateDirectories: true)
        try "notification-volume = 2\n".write(toFile: rig.folder.file("config/noti-play/noti-play.conf"), atomically: false, encoding: .utf8)
        listener.signal(SIGHUP)
        try listener.waitForLog("notification-volume must be from 0.0 to 1.0")
        try listener.waitForLog("reloaded")
        listener.signal(SIGTERM)
        #expect(listener.wait() == 0)
    }

    /// The user unit scripts/install.sh installs starts a listener that works: its ExecStart run
    /// as systemd would run it (absolute path, no shell), with the installed bundled sounds.
    @Test func theInstalledUserUnitStartsAWorkingListener() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let prefix = rig.folder.file("prefix")
        let built = URL(fileURLWithPath: TestTools.notiPlay).deletingLastPathComponent().path
        try TestTools.runChecked(repository + "/scripts/install.sh", ["--prefix", prefix, "--from", built])
        let unit = try String(contentsOfFile: prefix + "/share/systemd/user/noti-play-listen.service", encoding: .utf8)
        let lines = unit.split(separator: "\n").map(String.init)
        #expect(lines.contains("WantedBy=graphical-session.target") && lines.contains("PartOf=graphical-session.target"))
        let execStart = try #require(lines.first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        #expect(execStart == [prefix + "/bin/noti-play", "listen"])

        _ = try rig.startServer()
        let listener = try rig.spawn(execStart[0], Array(execStart.dropFirst()) + ["--verbose"])
        try listener.waitForLog("the notification server plays no sounds")
        try rig.notifySend(["-a", "installed"])
        try listener.waitForLog("installed: finished")
        listener.signal(SIGTERM)
        #expect(listener.wait() == 0)
    }

    @Test func withoutASessionBusItSaysSoAndFails() throws {
        let listener = try rig.spawn(TestTools.notiPlay, ["listen"], environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        #expect(listener.wait() == 1)
        #expect(listener.stderr == "noti-play listen: cannot connect to the session bus at unix:path=/nonexistent/bus: No such file or directory\n")
    }

    /// A bus that accepts connections and answers none (a stopped dbus-daemon) holds listen 5 s,
    /// not sd-bus's 90 s, and a SIGTERM meanwhile ends it at once with status 0.
    @Test func aBusThatNeverAnswersHoldsItNeitherLongNorPastSIGTERM() throws {
        rig.bus.signal(SIGSTOP)
        defer { rig.bus.signal(SIGCONT) }
        let started = Date()
        let refused = try rig.spawn(TestTools.notiPlay, ["listen"])
        #expect(refused.wait() == 1)
        // 5 s, however loaded the machine; sd-bus by itself waits 90 s.
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(refused.stderr == "noti-play listen: the session bus did not answer: not within 5 s\n")

        let stopped = try rig.spawn(TestTools.notiPlay, ["listen"])
        // Once SIGTERM is blocked (listen's first step; from then on its loop reads the signal)...
        try waitUntil("listen to block SIGTERM", timeout: 10) {
            guard let status = try? String(contentsOfFile: "/proc/\(stopped.pid)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
                  let mask = UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
            return mask & (1 << (UInt64(SIGTERM) - 1)) != 0
        }
        usleep(200_000)  // ...and it waits for the bus.
        let signalled = Date()
        stopped.signal(SIGTERM)
        #expect(stopped.wait() == 0, "\(stopped.stderr)")
        #expect(Date().timeIntervalSince(signalled) < 3)
        #expect(stopped.stderr == "")
    }

    /// Voluntary and involuntary context switches of every thread of `pid`.
    static func contextSwitches(_ pid: pid_t) throws -> Int {
        var total = 0
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let status = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
            for line in status.split(separator: "\n") where line.hasSuffix("ctxt_switches") || line.contains("ctxt_switches:") {
                total += Int(line.split(separator: "\t").last.map(String.init) ?? "") ?? 0
            }
        }
        return total
    }
}
