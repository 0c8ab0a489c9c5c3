/// How this copy of BenchmarkKit was compiled, so a debug build is never mistaken for a measurement.
///
/// `swift build -c release` (and `swift run -c release`) compiles with `-O` and defines no `DEBUG`
/// condition; `swift build` (debug, the default) defines `DEBUG`. BenchmarkKit checks its own
/// compilation, which SwiftPM always builds in the same configuration as the harness.
/// ```swift
/// guard BuildConfiguration.isOptimized else { print("build with -c release"); exit(2) }
/// ```
public enum BuildConfiguration {
    /// `true` when BenchmarkKit was compiled without the `DEBUG` condition (a release build).
    public static var isOptimized: Bool {
        #if DEBUG
            return false
        #else
            return true
        #endif
    }

    /// `"release"` or `"debug"`, as recorded in ``BenchmarkReport/buildConfiguration``.
    public static var name: String { isOptimized ? "release" : "debug" }
}

extension BenchmarkRunner {
    /// `true` in a release build (no `DEBUG` condition); the runner refuses to run otherwise unless
    /// ``RunnerConfiguration/allowDebug`` is set. Same as ``BuildConfiguration/isOptimized``.
    public static var isOptimizedBuild: Bool { BuildConfiguration.isOptimized }
}
