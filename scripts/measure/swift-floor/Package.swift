// swift-tools-version: 6.1
import PackageDescription
let package = Package(name: "floor", targets: [
    .systemLibrary(name: "CALSA", pkgConfig: "alsa"),
    .executableTarget(name: "Floor", dependencies: ["CALSA"]),
])
