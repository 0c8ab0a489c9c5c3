import SwiftData

/// Trip names in Finder-like order ("Trip 2" before "Trip 10"), as `SortDescriptor(\.name)`
/// orders them on Apple platforms; on Linux that descriptor alone sorts by `<`.
func tripNamesNaturally(_ context: ModelContext) throws -> [String] {
    var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
    descriptor.stringSortStyle = .natural  // or `stringSortStyle` on the ModelConfiguration
    return try context.fetch(descriptor).map(\.name)
}
