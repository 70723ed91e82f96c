// swift-tools-version: 6.1
import PackageDescription

// The data flow: bytes -> container parser -> codec -> Float32 frames (NotiPlayDecoder),
// and back again for `noti-play convert` (NotiPlayEncoder). Both are pure Swift.
// libsndfile (CSndFile) is only a reference decoder for the tests.
// What ships (release builds of libnoti-play and the command) links the C++ runtime under the Swift
// runtime statically: -lstdc++ then finds scripts/link/libstdc++.so, a linker script naming
// libstdc++.a, so hosts do not map all of libstdc++.so.6 (0.7 MiB at a C host's start, measured
// by scripts/measure/host-memory.py). Debug builds (the tests) keep the toolchain's shared runtime.
let staticLibStdCxx = LinkerSetting.unsafeFlags(
    ["-L\(Context.packageDirectory)/scripts/link"], .when(configuration: .release))

let package = Package(
    name: "noti-play",
    products: [
        .executable(name: "noti-play", targets: ["NotiPlayCommand"]),
        .library(name: "NotiPlayDecoder", targets: ["NotiPlayDecoder"]),
        .library(name: "NotiPlayEncoder", targets: ["NotiPlayEncoder"]),
        .library(name: "NotiPlayResampler", targets: ["NotiPlayResampler"]),
        .library(name: "NotiPlayOutput", targets: ["NotiPlayOutput"]),
        .library(name: "NotiPlay", targets: ["NotiPlay"]),
        // The C library for daemons written in C (installed as libnoti-play.so by scripts/install.sh).
        .library(name: "NotiPlayC", type: .dynamic, targets: ["NotiPlayC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(name: "NotiPlayDecoder"),
        .target(name: "NotiPlayEncoder", dependencies: ["NotiPlayDecoder"]),
        // Sample-rate conversion (Float32 in, Float32 out): depends on nothing else, so that the
        // command, the player's decode worker and the benchmarks take it alone.
        .target(name: "NotiPlayResampler", dependencies: ["CResamplerKernels"]),
        // Its inner loop in AVX2 + FMA, chosen at run time (Swift's x86-64 baseline is SSE2).
        .target(name: "CResamplerKernels"),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // ALSA output: a thin typed PCM layer and the real-time renderer that mixes voices.
        .target(name: "CALSASupport", linkerSettings: [.linkedLibrary("asound")]),
        // A PulseAudio server reached directly (where ALSA's configuration sends a device to its
        // pulse plugin): libpulse loaded on first use, not linked. Its header only (libpulse-dev).
        .target(name: "CPulseOutput", linkerSettings: [.linkedLibrary("dl")]),
        // A PipeWire server played natively: libpipewire-0.3 loaded on first use, not linked.
        // Its headers (libpipewire-0.3-dev) through system/, links to the two folders Debian
        // installs them in: a systemLibrary with pkgConfig "libpipewire-0.3" would link the
        // library too (NEEDED: loaded at every start, and a Depends of the .deb), and -I as an
        // unsafe flag would make every product above it unusable as a remote dependency.
        .target(name: "CPipeWireOutput", exclude: ["system"], cSettings: [.headerSearchPath("system")],
                linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "NotiPlayOutput", dependencies: ["NotiPlayDecoder", "CALSA", "CALSASupport", "CPulseOutput", "CPipeWireOutput", "CSystemSupport"]),
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        // The notification-sound model: sounds, lookup, sound theme, policy, and the player
        // daemons embed. libsndfile decodes theme sounds the pure-Swift decoder does not (Vorbis).
        // dladdr, for the bundled sounds beside the binary noti-play is linked into.
        .target(name: "CSystemSupport", linkerSettings: [.linkedLibrary("dl")]),
        // A library loaded on first use rather than linked: dlopen once (thread-safe), one table
        // of the functions called, a one-line reason when it cannot be used. The loaders below use it.
        .target(name: "CLibraryLoader", linkerSettings: [.linkedLibrary("dl")]),
        // libsndfile, loaded on first use (theme sounds, foreign formats): not linked, so neither
        // it nor its seven codec libraries are loaded with noti-play. Its header only.
        .target(name: "CSndFileLoader", dependencies: ["CLibraryLoader"]),
        // Ogg FLAC theme sounds (libsndfile 1.2.0 refuses them), through libFLAC.so.12 loaded on
        // first use. Its header only (libflac-dev).
        .target(name: "COggFLAC", dependencies: ["CLibraryLoader"]),
        .target(name: "NotiPlay", dependencies: ["NotiPlayDecoder", "NotiPlayOutput", "NotiPlayResampler", "CSndFileLoader", "COggFLAC", "CSystemSupport"]),
        // `noti-play listen`: the session bus through sd-bus, loaded on first use from
        // libsystemd.so.0 (so that playing a sound does not load it). Its header only
        // (libsystemd-dev).
        .target(name: "CNotificationBus", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "NotiPlayListen", dependencies: ["NotiPlay", "NotiPlayDecoder", "NotiPlayOutput", "CNotificationBus"]),
        // The shipped libnoti-play.so.0 (scripts/install.sh): its SONAME, only the header's
        // noti_play_* exported (noti-play.map), and in release builds the Swift runtime linked in,
        // so that hosts run without a Swift toolchain. Debug builds keep the runtime dynamic (from
        // the toolchain, through SwiftPM's rpath) because a static link costs every test build.
        // Unsafe flags keep the NotiPlayC product from being used as a versioned remote dependency;
        // SwiftPM checks that per product, so the Swift products stay usable. C hosts take the
        // installed library, not a SwiftPM product.
        // noti-play.h's structs as the C compiler lays them out, for CAPI.swift to read them by.
        .target(name: "CNotiPlayABI"),
        .target(
            name: "NotiPlayC", dependencies: ["NotiPlay", "CNotiPlayABI"], exclude: ["noti-play.h", "noti-play.pc.in", "noti-play.map"],
            linkerSettings: [
                .unsafeFlags([
                    "-Xlinker", "-soname=libnoti-play.so.0",  // the major of NOTI_PLAY_VERSION_MAJOR
                    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/NotiPlayC/noti-play.map",
                    // gold, swiftc's default on Linux, leaves the runtime's protected symbols in
                    // the dynamic symbol table (local, but listed); lld lists only noti_play_*.
                    "-use-ld=lld",
                ]),
                // --no-undefined only for what ships: a sanitizer build's library takes the
                // sanitizer runtime from the executable that loads it.
                .unsafeFlags(["-static-stdlib", "-no-toolchain-stdlib-rpath", "-Xlinker", "--no-undefined"], .when(configuration: .release)),
                staticLibStdCxx,
            ]
        ),
        .executableTarget(
            name: "NotiPlayCommand",
            dependencies: [
                "NotiPlay",
                "NotiPlayDecoder",
                "NotiPlayEncoder",
                "NotiPlayListen",
                "NotiPlayOutput",
                "NotiPlayResampler",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [staticLibStdCxx]
        ),
        // libsoxr (libsoxr-dev), the reference resampler in the tests; nothing that ships links it.
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        // Running processes, temporary folders and the reference decoders (libsndfile, ffmpeg),
        // the reference resampler (libsoxr), and a scripted playback device (a PCMBackend).
        .target(name: "NotiPlayTestSupport", dependencies: ["CSndFile", "CSoxr", "NotiPlayOutput"], path: "Tests/NotiPlayTestSupport"),
        // NotiPlayCommand: the malformed-input tests also run `noti-play info` on each case.
        .testTarget(name: "NotiPlayDecoderTests", dependencies: ["NotiPlayDecoder", "NotiPlayCommand", "NotiPlayTestSupport"]),
        .testTarget(name: "NotiPlayResamplerTests", dependencies: ["NotiPlayResampler", "NotiPlayTestSupport"]),
        .testTarget(name: "NotiPlayEncoderTests", dependencies: ["NotiPlayEncoder", "NotiPlayTestSupport"]),
        .testTarget(name: "ReferenceTests", dependencies: ["NotiPlayDecoder", "NotiPlayTestSupport"]),
        .testTarget(
            name: "NotificationTests",
            dependencies: ["NotiPlay", "NotiPlayCommand", "NotiPlayDecoder", "NotiPlayOutput", "NotiPlayTestSupport"]
        ),
        .testTarget(
            name: "PlaybackTests",
            dependencies: ["NotiPlay", "NotiPlayCommand", "NotiPlayDecoder", "NotiPlayOutput", "NotiPlayTestSupport"]
        ),
        // A private dbus-daemon, notify-send, dunst under Xvfb: `noti-play listen` on real parts.
        .testTarget(name: "ListenTests", dependencies: ["NotiPlay", "NotiPlayListen", "NotiPlayCommand", "NotiPlayTestSupport"]),
        // scripts/make-deb.sh's packages, installed with apt and run where no Swift toolchain is.
        .testTarget(name: "PackageTests", dependencies: ["NotiPlayDecoder", "NotiPlayTestSupport"]),
        .testTarget(
            name: "CommandTests",
            dependencies: ["NotiPlayCommand", "NotiPlayDecoder", "NotiPlayTestSupport"]
        ),
    ]
)
