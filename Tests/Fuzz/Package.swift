// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for the decoder and the encoder. A package of its own, so that a normal
// `swift build` of noti-play never compiles them; scripts/fuzz/fuzz.sh builds them with
// `--sanitize=fuzzer --sanitize=address` and runs one.
let package = Package(
    name: "noti-play-fuzz",
    dependencies: [.package(name: "noti-play", path: "../..")],
    targets: [
        // Decodes whatever it is given, with odd buffer sizes, as Float and as Int16.
        .target(name: "FuzzSupport", dependencies: [.product(name: "NotiPlayDecoder", package: "noti-play")]),
        .executableTarget(name: "FuzzWAV", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzAIFF", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzCAF", dependencies: ["FuzzSupport"]),
        // Any of the three whose file changes between two reads of it (issue 23's race).
        .executableTarget(name: "FuzzRace", dependencies: ["FuzzSupport"]),
        .executableTarget(
            name: "FuzzRoundTrip",
            dependencies: [
                "FuzzSupport",
                .product(name: "NotiPlayDecoder", package: "noti-play"),
                .product(name: "NotiPlayEncoder", package: "noti-play"),
            ]
        ),
        // The notification layer's text inputs: the configuration file, sound names, index.theme.
        .executableTarget(name: "FuzzSettings", dependencies: [.product(name: "NotiPlay", package: "noti-play")]),
    ]
)
