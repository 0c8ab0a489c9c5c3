import BenchmarkKit
import OpenSwiftData
import OpenSwiftDataTesting

/// Fetching the short books of an in-memory library of `books` books, at each scale.
func shortBooksBenchmark(scales: [Int]) -> Benchmark {
    Benchmark(
        "short books", group: "fetch", store: "memory", scales: scales,
        setUp: { books in  // untimed, before every run
            let container = try ModelContainer(
                for: Book.self,
                configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            _ = try Fixture(seed: 7) {
                Generate(Book.self, count: books) { row in
                    Book(title: row.word("title"), pages: row.int("pages", in: 20...900))
                }
            }.populate(container)
            return ModelContext(container)
        },
        body: { context in  // timed
            _ = try context.fetch(FetchDescriptor(predicate: #Predicate<Book> { $0.pages < 100 }))
        })
}

/// Runs the benchmark and writes a JSON report, `latest.md` and SVG charts into `reports`.
func benchmarkLibrary(scales: [Int], configuration: RunnerConfiguration, reports: URL) throws -> [BenchmarkResult] {
    let results = try BenchmarkRunner(configuration: configuration).run([shortBooksBenchmark(scales: scales)])
    try ReportDirectoryWriter.write(BenchmarkReport.current(results: results), to: reports)
    return results
}
