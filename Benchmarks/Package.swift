// swift-tools-version: 6.1
import PackageDescription

// The decode benchmarks live in a package of their own so that nobody who depends on noti-play
// pulls package-benchmark and its dependencies. Run them with, from this folder:
//     swift package --disable-sandbox benchmark
// or scripts/benchmarks/decode-report.py from the repository root for the comparison table and chart.
let package = Package(
    name: "noti-play-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Named explicitly: a path dependency is otherwise known by its folder name, which differs
        // between clones and worktrees.
        .package(name: "noti-play", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // libsndfile, the baseline decoder in the same run. The root package's CSndFile is not a
        // product, so this package carries its own module map.
        .systemLibrary(name: "CSndFileBench", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .executableTarget(
            name: "DecodeBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "NotiPlayDecoder", package: "noti-play"),
                .product(name: "NotiPlayEncoder", package: "noti-play"),
                "CSndFileBench",
            ],
            path: "Benchmarks/DecodeBenchmarks",
            // Benchmark closures are @Sendable and capture decoders set up once; they run on one thread.
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The resamplers compared with noti-play's: libsoxr (libsoxr-dev) and speexdsp
        // (libspeexdsp-dev), beside it in the same run; ResamplerContenders sets all five up the
        // same way for the speed benchmarks and the quality measurement.
        .systemLibrary(name: "CSoxrBench", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(name: "CSpeexDSPBench", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        .target(
            name: "ResamplerContenders",
            dependencies: [.product(name: "NotiPlayResampler", package: "noti-play"), "CSoxrBench", "CSpeexDSPBench"]
        ),
        .executableTarget(
            name: "ResamplerBenchmarks",
            dependencies: [.product(name: "Benchmark", package: "benchmark"), "ResamplerContenders"],
            path: "Benchmarks/ResamplerBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // THD+N, passband ripple, images and aliases, pre-echo of every contender:
        // `swift run -c release ResamplerQuality`.
        .executableTarget(name: "ResamplerQuality", dependencies: ["ResamplerContenders"]),
        // play() to the first frame written on an engine that is already running.
        .executableTarget(
            name: "WarmPlayLatency",
            dependencies: [
                .product(name: "NotiPlayDecoder", package: "noti-play"),
                .product(name: "NotiPlayEncoder", package: "noti-play"),
                .product(name: "NotiPlayOutput", package: "noti-play"),
                .product(name: "NotiPlay", package: "noti-play"),  // SoundDecoder as a FrameSource
            ]
        ),
    ]
)
