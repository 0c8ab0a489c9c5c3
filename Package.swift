// swift-tools-version: 6.0
// OpenSwiftData — SwiftData's API and semantics on SQLite, for Linux.
import PackageDescription
import CompilerPluginSupport
import Foundation

// MARK: - swift-syntax: the package by default, the toolchain's copy on request

/// Whether the macros build against the toolchain's own swift-syntax libraries instead of the
/// swift-syntax package: `OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX=1` (any value but empty or `0`).
///
/// Default (unset): the macro target depends on `https://github.com/swiftlang/swift-syntax.git`
/// like every macro package, and the manifest has no `unsafeFlags`, so SwiftPM accepts the
/// project as a versioned dependency (`from: "0.1.0"`). Set: nothing is fetched; the macros link
/// `<toolchain>/usr/lib/swift/host` with `-I`/`-L`/`-rpath` flags (unsafe flags, so this mode
/// only works for the root package or a path dependency). The Makefile and `.ci/run` set it.
let useToolchainSwiftSyntax: Bool = {
    let value = Context.environment["OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX"] ?? ""
    return !value.isEmpty && value != "0"
}()

/// The toolchain's own swift-syntax libraries (`<toolchain>/usr/lib/swift/host`), found by
/// following `swiftc` on `PATH` through symlinks.
func toolchainHostLibraries() -> String {
    let fm = FileManager.default
    let path = Context.environment["PATH"] ?? "/usr/bin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/swiftc"
        guard fm.isExecutableFile(atPath: candidate) else { continue }
        let resolved = URL(fileURLWithPath: candidate).resolvingSymlinksInPath()
        let host = resolved.deletingLastPathComponent()   // usr/bin
            .deletingLastPathComponent()                   // usr
            .appendingPathComponent("lib/swift/host").path
        if fm.fileExists(atPath: host + "/SwiftSyntax.swiftmodule") { return host }
    }
    return "/opt/swift/usr/lib/swift/host"
}

/// Where the toolchain mode's builds keep the modules the compiler builds while importing:
/// `$XDG_CACHE_HOME/openswiftdata/ModuleCache` (else `~/.cache/…`).
///
/// The toolchain ships swift-syntax and Observation as textual interfaces only, and Foundation's
/// and SQLite's C headers as Clang modules to build, and SwiftPM's module cache lives in
/// `.build`, so every clean build would build them again: about 9 s of CPU for SwiftSyntax's
/// interface (half the macro target's build), and 0.6 s in each of the library's first two
/// compile jobs, which wait for Observation, `_FoundationCShims`, Glibc and `CSQLite`. The
/// compiler names each cached module by its compiler version and flags and checks it against
/// the interface or headers it came from, so a cache shared by clones and toolchains stays
/// correct.
func persistentModuleCache() -> String {
    let environment = Context.environment
    let cacheHome = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        ?? (environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSTemporaryDirectory()) + "/.cache"
    return cacheHome + "/openswiftdata/ModuleCache"
}

var dependencies: [Package.Dependency] = []
let macros: Target
if useToolchainSwiftSyntax {
    let host = toolchainHostLibraries()
    macros = .macro(
        name: "OpenSwiftDataMacros",
        swiftSettings: [
            // Plugin.swift serves the compiler through CompilerPluginMessageListener in this mode
            // (the toolchain ships no SwiftCompilerPlugin module).
            .define("OPENSWIFTDATA_TOOLCHAIN_SWIFT_SYNTAX"),
            // A system search path: the index store leaves swift-syntax out (`toolchainModeFlags`).
            .unsafeFlags(["-Isystem", host]),
        ],
        linkerSettings: [.unsafeFlags([
            "-L", host, "-lSwiftSyntax", "-lSwiftSyntaxMacros", "-lSwiftDiagnostics",
            "-lSwiftSyntaxBuilder", "-lSwiftCompilerPluginMessageHandling",
            "-Xlinker", "-rpath", "-Xlinker", host,
        ])]
    )
} else {
    // 600 (Swift 6.0) through 603 (Swift 6.3): the releases of the toolchains this supports.
    dependencies.append(.package(url: "https://github.com/swiftlang/swift-syntax.git", "600.0.0"..<"604.0.0"))
    macros = .macro(
        name: "OpenSwiftDataMacros",
        dependencies: [
            .product(name: "SwiftSyntax", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
            .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ]
    )
}

// MARK: - Products

let products: [Product] = [
    // Stable API: SwiftData's names and signatures, plus the documented OpenSwiftData additions.
    .library(name: "OpenSwiftData", targets: ["OpenSwiftData"]),
    // `import SwiftData` on Linux. Declared on every platform so a cross-platform client's manifest
    // resolves everywhere; on Apple platforms the module is empty, and clients depend on it with
    // `condition: .when(platforms: [.linux])` so it is never built there (see the README).
    .library(name: "SwiftData", targets: ["SwiftData"]),
    // `import OSLog` on Linux: Apple's `Logger`, `OSLog` and `os_log`, writing to standard error.
    // Empty on Apple platforms, declared everywhere and depended on with a Linux condition, like
    // the SwiftData product, so Apple's framework is never shadowed.
    .library(name: "OSLog", targets: ["OSLog"]),
    // The harness library for your own tests: generators, fixtures, store pair, conformance suites.
    .library(name: "OpenSwiftDataTesting", targets: ["OpenSwiftDataTesting"]),
    // The benchmark runner, metrics and report writers (links jemalloc: benchmark executables only).
    .library(name: "BenchmarkKit", targets: ["BenchmarkKit"]),
    // `Harness.main(schemas:)`: the harness command line over a team's own schemas, for a small
    // executable target of theirs.
    .library(name: "OpenSwiftDataHarness", targets: ["OpenSwiftDataHarness"]),
    // The harness itself, for the store-file commands (`fixtures describe|verify`, `report merge`).
    .executable(name: "harness", targets: ["harness"]),
]

// MARK: - Targets

var targets: [Target] = [
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                   providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc",
                   providers: [.apt(["libjemalloc-dev"]), .brew(["jemalloc"])]),
    macros,
    .target(
        name: "OpenSwiftData",
        dependencies: ["CSQLite", "OpenSwiftDataMacros"]
    ),
    .target(name: "SwiftData",
            dependencies: [.target(name: "OpenSwiftData", condition: .when(platforms: [.linux]))]),
    .target(name: "OSLog"),
    .testTarget(
        name: "OpenSwiftDataTests",
        dependencies: ["OpenSwiftData", "OpenSwiftDataTesting"]
    ),
    .target(name: "OpenSwiftDataTesting", dependencies: ["OpenSwiftData", "DecodingDiagnostics"]),
    // The project's own QA rig, no product: the reliability probes and their worker processes.
    .target(name: "HarnessSupport", dependencies: ["OpenSwiftData", "OpenSwiftDataTesting"]),
    .testTarget(name: "OpenSwiftDataTestingTests",
                dependencies: ["OpenSwiftDataTesting", "OpenSwiftData", "HarnessSupport"]),
    // jemalloc's options for the executables that link it (one C string, `malloc_conf`).
    .target(name: "CJemallocConfig"),
    .target(name: "BenchmarkKit", dependencies: ["CJemalloc", "CJemallocConfig", "CSQLite", "OpenSwiftData"]),
    .testTarget(name: "BenchmarkKitTests", dependencies: ["BenchmarkKit"]),
    // A decoding error in a few words, for one-line messages (no product: shared by the command
    // line's option checks and the fixture manifests).
    .target(name: "DecodingDiagnostics"),
    // The command line: argument parser, subcommand specs, checked option values (no product: the
    // harness's own).
    .target(name: "ArgumentParsing", dependencies: ["DecodingDiagnostics"]),
    .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing", "OpenSwiftDataTesting"]),
    .target(name: "PersistenceWorkloads", dependencies: ["CSQLite", "OpenSwiftData", "BenchmarkKit", "ArgumentParsing"],
            path: "Benchmarks/PersistenceWorkloads"),
    // Every `harness` subcommand, one file each; the executables below only call into it.
    .target(name: "HarnessCommands",
            dependencies: ["ArgumentParsing", "DecodingDiagnostics", "PersistenceWorkloads", "BenchmarkKit", "OpenSwiftData",
                           "OpenSwiftDataTesting", "HarnessSupport"]),
    .testTarget(name: "HarnessCommandsTests",
                dependencies: ["HarnessCommands", "ArgumentParsing", "PersistenceWorkloads", "BenchmarkKit", "OpenSwiftData",
                               "OpenSwiftDataTesting", "HarnessSupport"]),
    .executableTarget(name: "PersistenceBenchmarks", dependencies: ["PersistenceWorkloads", "ArgumentParsing"],
                      path: "Benchmarks/PersistenceBenchmarks"),
    // A team's own index benchmark in one file (the README's IndexBenchmark example as a program).
    .executableTarget(name: "ShopIndexBenchmark", dependencies: ["BenchmarkKit", "OpenSwiftData"],
                      path: "Benchmarks/ShopIndexBenchmark"),
    .executableTarget(name: "harness", dependencies: ["HarnessCommands", "HarnessSupport"]),
    .target(name: "OpenSwiftDataHarness", dependencies: ["HarnessCommands", "HarnessSupport", "OpenSwiftData", "OpenSwiftDataTesting"]),
    .testTarget(name: "PersistenceWorkloadsTests", dependencies: ["PersistenceWorkloads", "BenchmarkKit", "OpenSwiftData"]),
]

#if os(Linux)
// Test targets that `import SwiftData` run where that is this project's module (on a Mac it is
// Apple's framework). Test targets are never built for a package's clients.

// Model code as users write it, compiled in Swift 5 mode: the macros' expansions must be
// warning-free there as well as in Swift 6 mode. Warnings fail the build in the toolchain mode
// (`make test`, CI) through `-warnings-as-errors`; the default manifest carries no unsafe flags,
// and swift-tools-version 6.0 has no safe setting for it (`treatAllWarnings` needs 6.2).
var compatibilitySettings: [SwiftSetting] = [.swiftLanguageMode(.v5)]
if useToolchainSwiftSyntax { compatibilitySettings.append(.unsafeFlags(["-warnings-as-errors"])) }
targets.append(.testTarget(name: "SwiftDataCompatibilityTests", dependencies: ["SwiftData", "OSLog"],
                           swiftSettings: compatibilitySettings))

// Every ```swift block of README.md is one of this target's Examples/ files, compiled in Swift 6
// mode and run (ReadmeBlocksTests keeps the two identical); warnings fail it as above.
targets.append(.testTarget(name: "ReadmeTests",
                           dependencies: ["SwiftData", "OpenSwiftData", "OpenSwiftDataTesting", "BenchmarkKit",
                                          "OpenSwiftDataHarness"],
                           swiftSettings: useToolchainSwiftSyntax ? [.unsafeFlags(["-warnings-as-errors"])] : []))
#endif

// MARK: - The toolchain mode's build flags

/// Flags every Swift target gets in the toolchain mode (the Makefile's, CI's and a contributor's
/// builds; the default manifest carries no unsafe flags):
///
/// - `-module-cache-path`: the modules built while importing outlive `.build`
///   (``persistentModuleCache()``); the last `-module-cache-path` wins over SwiftPM's own.
/// - `-index-ignore-system-modules`: SwiftPM's debug builds write an index store, and the first
///   compile job of a clean build would also write index records for every module it imports
///   from the toolchain (the standard library, Foundation, Glibc, swift-syntax): about 1.3 s of
///   the macro target's single-core first job and, after it, of the library's first job, both
///   before the library's other jobs can start. The project's own files are indexed as before, so
///   an editor's find-references and SwiftPM's test discovery (which reads the test targets'
///   records) are unchanged; going to a toolchain declaration uses its generated interface, as
///   it does without an index.
let toolchainModeFlags: [SwiftSetting] = [
    .unsafeFlags(["-index-ignore-system-modules", "-module-cache-path", persistentModuleCache()]),
]
if useToolchainSwiftSyntax {
    for target in targets where target.type != .system {
        target.swiftSettings = (target.swiftSettings ?? []) + toolchainModeFlags
    }
}

let package = Package(
    name: "OpenSwiftData",
    // Observation and Foundation's #Predicate need these; the swift-syntax package needs no more.
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1), .macCatalyst(.v17)],
    products: products,
    dependencies: dependencies,
    targets: targets
)
