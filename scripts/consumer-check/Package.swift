// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "TripPlanner",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(url: "https://github.com/OWNER/OpenSwiftData.git", from: "0.1.0"),
    ],
    targets: [
        .executableTarget(name: "TripPlanner", dependencies: [
            // `import SwiftData` is OpenSwiftData on Linux and Apple's framework elsewhere; the
            // condition keeps this module from being built (and hiding Apple's) on Apple platforms.
            .product(name: "SwiftData", package: "OpenSwiftData", condition: .when(platforms: [.linux])),
        ]),
    ]
)
