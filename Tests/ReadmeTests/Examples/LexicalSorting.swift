import SwiftData

/// Trip names by Swift's `<` ("Trip 10" before "Trip 2"), an order an index on `name` can serve;
/// `SortDescriptor(\.name)` alone sorts as Apple's default comparator ("Trip 2" before "Trip 10").
func tripNamesLexically(_ context: ModelContext) throws -> [String] {
    // Or `stringSortStyle = .lexical` on the FetchDescriptor or the ModelConfiguration.
    let descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, comparator: .lexical)])
    return try context.fetch(descriptor).map(\.name)
}
