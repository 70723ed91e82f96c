import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// The Debian packages as a user gets them: `scripts/make-deb.sh` builds them, lintian judges
/// them, apt installs them (and their Depends) into the machine, and then — where the Swift
/// toolchain's folder is hidden — the installed command plays the bundled default sound, the
/// installed `noti-play listen` plays a notification's sound, and a C program built with
/// `pkg-config --cflags --libs noti-play` plays through the installed library. Needs root (apt,
/// the mount namespace), as CI runs. It installs into the system and purges afterwards, so it
/// refuses to run where these packages are already installed.
@Suite struct DebianPackageTests {
    let folder = TemporaryDirectory("debian-package")
    let repository = Repository.path
    static let packages = ["noti-play", "libnoti-play0", "libnoti-play-dev"]

    func field(_ name: String, of deb: String) throws -> String {
        try TestTools.runChecked("dpkg-deb", ["--field", deb, name]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Expects `captured` to begin with `sound` (mono) on each of `channels` channels, saying
    /// where it differs rather than printing both.
    func expectPlayed(_ captured: [Float], _ sound: [Float], channels: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = sound.flatMap { Array(repeating: $0, count: channels) }
        let differs = zip(captured, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? (captured.count < expected.count ? captured.count : nil)
        #expect(!sound.isEmpty && differs == nil,
                "\(what): \(captured.count) samples captured, \(expected.count) expected; first difference at \(differs ?? -1)",
                sourceLocation: sourceLocation)
    }

    @Test func thePackagesInstallWithAptAndRunWhereNoSwiftToolchainIs() throws {
        for package in Self.packages {
            let status = try TestTools.run("dpkg-query", ["--show", "--showformat=${Status}", package]).stdoutText
            try #require(!status.contains("install ok installed"),
                         "\(package) is installed already; this test installs and purges it: apt-get purge \(Self.packages.joined(separator: " "))")
        }
        let version = try Repository.headerVersion()
        let architecture = try TestTools.runChecked("dpkg", ["--print-architecture"]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let multiarch = try TestTools.runChecked("dpkg-architecture", ["-qDEB_HOST_MULTIARCH"]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)

        let out = folder.file("debs")
        let built = try TestTools.run(repository + "/scripts/make-deb.sh", ["--out", out])
        try #require(built.status == 0, "\(built.stderr)")
        let debs = Self.packages.map { "\(out)/\($0)_\(version)_\(architecture).deb" }
        #expect(built.stdoutText.split(separator: "\n").map { $0.replacingOccurrences(of: out, with: "") }
                == Self.packages.map { "/\($0)_\(version)_\(architecture).deb" })

        // Depends as dpkg-shlibdeps found them in the ELF files, and the -dev package tied to its
        // library's exact version.
        for deb in debs.prefix(2) {
            let depends = try field("Depends", of: deb)
            #expect(depends.contains("libc6 (>=") && depends.contains("libasound2 (>="), "\(deb): \(depends)")
            #expect(!depends.contains("swift"), "\(deb): \(depends)")
        }
        #expect(try field("Depends", of: debs[2]).contains("libnoti-play0 (= \(version))"))

        // lintian: not one error or warning (its notes, "I:", remain).
        let lintian = try TestTools.run("lintian", ["--fail-on", "error,warning"] + debs)
        #expect(lintian.status == 0, "\(lintian.stdoutText)")
        #expect(!lintian.stdoutText.split(separator: "\n").contains { $0.hasPrefix("E:") || $0.hasPrefix("W:") }, "\(lintian.stdoutText)")

        defer {
            _ = try? TestTools.run("apt-get", ["purge", "-y", "-qq"] + Self.packages, environment: ["DEBIAN_FRONTEND": "noninteractive"])
        }
        let installed = try TestTools.run("apt-get", ["install", "-y", "-qq", "--no-install-recommends"] + debs,
                                          environment: ["DEBIAN_FRONTEND": "noninteractive"])
        try #require(installed.status == 0, "\(installed.stderr)")
        for path in ["/usr/bin/noti-play", "/usr/share/noti-play/sounds/default.caf", "/usr/share/man/man1/noti-play.1.gz",
                     "/usr/lib/systemd/user/noti-play-listen.service", "/usr/include/noti-play.h",
                     "/usr/share/bash-completion/completions/noti-play", "/usr/share/zsh/vendor-completions/_noti-play",
                     "/usr/share/fish/vendor_completions.d/noti-play.fish",
                     "/usr/lib/\(multiarch)/libnoti-play.so.0", "/usr/lib/\(multiarch)/pkgconfig/noti-play.pc"] {
            #expect(FileManager.default.fileExists(atPath: path), "\(path) is not installed")
        }
        // Each package says it is MIT-licensed (Debian's name: Expat), with the licence's text.
        let licence = try String(contentsOfFile: Repository.path + "/LICENSE", encoding: .utf8)
        for package in Self.packages {
            let copyright = try String(contentsOfFile: "/usr/share/doc/\(package)/copyright", encoding: .utf8)
            #expect(copyright.contains("\nLicense: Expat\n") && copyright.contains(" THE SOFTWARE IS PROVIDED \"AS IS\""), "\(package): \(copyright)")
            #expect(licence.hasPrefix("MIT License\n") && copyright.contains(" Permission is hereby granted, free of charge"), "\(package)")
        }
        let unit = try String(contentsOfFile: "/usr/lib/systemd/user/noti-play-listen.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/noti-play listen\n"), "\(unit)")

        let hidden = try HiddenToolchain(in: folder)
        let sound = try SoundDecoder(path: "/usr/share/noti-play/sounds/default.caf").readAll()
        // No configuration of the user's, no sounds but the bundled ones.
        let session = ["XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data"), "XDG_DATA_DIRS": folder.file("dirs")]

        let versionShown = try hidden.run("/usr/bin/noti-play", ["--version"])
        #expect(versionShown.status == 0 && versionShown.stdoutText == "noti-play \(version)\n", "\(versionShown.stderr)")
        // The command plays the bundled default sound, exactly.
        let tap = try ALSATap(in: folder)
        let played = try hidden.run("/usr/bin/noti-play", ["--default"], environment: session.merging(tap.environment) { $1 })
        #expect(played.status == 0, "\(played.stderr)")
        expectPlayed(try tap.captured().withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }, sound, channels: 1, "the command")

        // `noti-play listen`, installed, plays a notification's sound: the default, for a
        // notification that names none.
        let rig = try ListenRig()
        _ = try rig.startServer()
        let listener = try rig.startListener(command: hidden.command("/usr/bin/noti-play"))
        try rig.notifySend(["--app-name", "Package"])
        try listener.waitForLog("finished")
        listener.signal(SIGTERM)
        #expect(listener.wait() == 0, "\(listener.stderr)")
        // The player opens its devices in stereo.
        expectPlayed(try rig.tap.captured().withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }, sound, channels: 2, "listen")

        // A C daemon built with pkg-config against the installed library: no flag points into the
        // toolchain, and the library finds its bundled sounds from /usr/lib/MULTIARCH.
        let flags = try hidden.run("pkg-config", ["--cflags", "--libs", "noti-play"])
        #expect(flags.status == 0 && !flags.stdoutText.contains(hidden.toolchain) && !flags.stdoutText.contains("rpath"),
                "\(flags.stdoutText) \(flags.stderr)")
        let daemon = folder.file("noti-play-daemon")
        let requests = folder.file("requests")
        try "version\ndefault\nwait\nquit\n".write(toFile: requests, atomically: true, encoding: .utf8)
        let capture = folder.file("daemon.raw")
        let ran = try hidden.run("/bin/sh", ["-c", """
            gcc -Wall -Wextra -Werror -o "$1" "$2" $(pkg-config --cflags --libs noti-play) || exit 90
            exec "$1" < "$3"
            """, "sh", daemon, repository + "/docs/examples/noti-play-daemon.c", requests],
            environment: session.merging(["NOTI_PLAY_DEVICE": "file:FILE=\(capture),FORMAT=raw"]) { $1 })
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(ran.stdoutText == "version \(version) \(version)\nstarted 1\nended 1 finished \nidle\n", "\(ran.stderr)")
        expectPlayed(try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) },
                     sound, channels: 2, "the C daemon")
    }

    /// Each package's copyright names the code of others its binary holds, and only that: the
    /// command links swift-argument-parser, and through it swift-foundation's
    /// FoundationEssentials, beside the Swift runtime and libdispatch, which the library has too;
    /// the -dev package holds no binary code. Read from the binaries of the .debs themselves,
    /// stripped as they ship (a Swift module's name stays in its metadata, libdispatch's queue
    /// names in its data). Needs no root: nothing is installed. It used to name the runtime alone.
    @Test func eachPackagesCopyrightNamesTheCodeLinkedIntoIt() throws {
        let out = folder.file("debs")
        let built = try TestTools.run(repository + "/scripts/make-deb.sh", ["--out", out])
        try #require(built.status == 0, "\(built.stderr)")
        let tree = folder.file("tree")
        for deb in built.stdoutText.split(separator: "\n") { try TestTools.runChecked("dpkg-deb", ["-x", String(deb), tree]) }
        let multiarch = try TestTools.runChecked("dpkg-architecture", ["-qDEB_HOST_MULTIARCH"]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let library = try TestTools.runChecked("readlink", ["-f", "\(tree)/usr/lib/\(multiarch)/libnoti-play.so.0"]).stdoutText
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let strings = { (path: String) in Set(try TestTools.runChecked("strings", ["-a", path]).stdoutText.split(separator: "\n")) }
        let command = try strings(tree + "/usr/bin/noti-play"), shared = try strings(library)
        // What is in each binary, found independently of make-deb.sh's own probe where a better
        // one is there: the module names and libdispatch's root queue.
        #expect(command.contains("ArgumentParser") && command.contains("FoundationEssentials") && command.contains("com.apple.root.default-qos"))
        #expect(!shared.contains("ArgumentParser") && !shared.contains("FoundationEssentials") && shared.contains("com.apple.root.default-qos"))
        // libstdc++ is linked in (Package.swift), not loaded: no binary needs libstdc++.so.6.
        for binary in [tree + "/usr/bin/noti-play", library] {
            let dynamic = try TestTools.runChecked("readelf", ["-d", binary]).stdoutText
            #expect(!dynamic.contains("libstdc++"), "\(dynamic)")
        }
        let copyright = { (package: String) in try String(contentsOfFile: "\(tree)/usr/share/doc/\(package)/copyright", encoding: .utf8) }
        let runtime = "  - the Swift standard library and runtime (swift.org; Apache-2.0 with the Runtime Library Exception)\n"
        let dispatch = "  - libdispatch and its BlocksRuntime (swift-corelibs-libdispatch; libdispatch Apache-2.0, BlocksRuntime Apache-2.0 with the Runtime Library Exception)\n"
        let parser = "  - swift-argument-parser (Apache-2.0 with the Runtime Library Exception)\n"
        let foundation = "  - FoundationEssentials of swift-foundation (Apache-2.0 with the Runtime Library Exception)\n"
        let libstdcxx = "  - the parts of GCC's libstdc++ the Swift runtime uses (GPL-3+ with the GCC Runtime Library Exception 3.1)\n"
        let commandText = try copyright("noti-play"), libraryText = try copyright("libnoti-play0"), devText = try copyright("libnoti-play-dev")
        #expect(commandText.contains(" Linked into usr/bin/noti-play, each under its own licence:\n" + runtime + dispatch + parser + foundation + libstdcxx),
                "\(commandText)")
        #expect(libraryText.contains(" Linked into usr/lib/\(multiarch)/libnoti-play.so.") && libraryText.contains(runtime + dispatch + libstdcxx + " The Apache"),
                "\(libraryText)")
        #expect(!devText.contains("Linked into") && devText.contains("\nLicense: Expat\n"), "\(devText)")
    }
}
