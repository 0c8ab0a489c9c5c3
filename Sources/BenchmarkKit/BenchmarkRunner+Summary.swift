extension BenchmarkRunner {
    /// Turns per-run samples into a result: distributions, per-run medians, per-operation figures,
    /// SQLite counters, process memory and `ratioToRaw`. Unsupported metrics never appear.
    func summarize(
        _ benchmark: Benchmark, scale: Int, iterations: Int,
        ours: Samples, raw: Samples?, queryPlan: [String]
    ) -> BenchmarkResult {
        let descriptors = producers.flatMap(\.supportedMetrics)
        var metrics = Self.summarize(ours, descriptors: descriptors, prefix: nil)
        if let raw {
            metrics.merge(Self.summarize(raw, descriptors: descriptors, prefix: MetricName.raw)) { a, _ in a }
        }

        if let operations = benchmark.operationsPerRun?(scale), operations > 0 {
            let ops = Double(operations)
            metrics[MetricName.operationsPerRun] = ops
            if let wall = metrics[MetricName.wallNanosecondsMedian], wall > 0 {
                metrics[MetricName.operationsPerSecond] = ops / (wall / 1e9)
                metrics[MetricName.wallNanosecondsMedianPerOperation] = wall / ops
            }
            if let mallocs = metrics[MetricName.mallocCountPerRun] {
                metrics[MetricName.mallocCountPerOperation] = mallocs / ops
            }
            if let bytes = metrics[MetricName.allocatedBytesPerRun] {
                metrics[MetricName.allocatedBytesPerOperation] = bytes / ops
            }
        }
        if let peak = ProcessMemory.peakResidentKiB() { metrics[MetricName.peakResidentKiB] = Double(peak) }
        if let rss = ProcessMemory.currentResidentKiB() { metrics[MetricName.residentKiB] = Double(rss) }

        var ratio: Double?
        if let raw {
            ratio = Statistics.ratioOfMedians(
                ours.byMetric[WallClockProducer.wallNanoseconds.name] ?? [],
                raw.byMetric[WallClockProducer.wallNanoseconds.name] ?? [])
        }
        return BenchmarkResult(
            name: benchmark.name, group: benchmark.group, store: benchmark.store,
            rows: scale, strategy: benchmark.strategy, iterations: iterations,
            metrics: metrics, ratioToRaw: ratio, queryPlan: queryPlan, ratioTarget: benchmark.ratioTarget)
    }

    private static func summarize(
        _ samples: Samples, descriptors: [MetricDescriptor],
        prefix: ((String) -> String)?
    ) -> [String: Double] {
        let name = prefix ?? { $0 }
        var out: [String: Double] = [:]
        for descriptor in descriptors {
            guard let stats = Statistics(samples.byMetric[descriptor.name] ?? []) else { continue }
            switch descriptor.aggregation {
            case .distribution:
                for (key, value) in stats.metrics(named: descriptor.name) { out[name(key)] = value }
            case .medianPerRun:
                out[name(descriptor.name + "PerRun")] = stats.median
            }
        }
        if !samples.counters.isEmpty {
            for field in [MetricName.vmSteps, MetricName.fullScanSteps, MetricName.sorts, MetricName.autoIndexRows] {
                let values = samples.counters.compactMap { $0.metrics[field] }
                if let stats = Statistics(values) { out[name(field)] = stats.median }
            }
        }
        return out
    }
}
