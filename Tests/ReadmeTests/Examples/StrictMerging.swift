import SwiftData

/// Raises every trip's price by `amount`, refusing to overwrite a price another writer changed
/// since this context read it: with `mergePolicy = .error` such a save throws
/// `SwiftDataError.mergeConflict`, writes nothing and keeps the changes; read again and retry.
func raisePrices(by amount: Double, in url: URL, attempts: Int = 3) throws {
    var configuration = ModelConfiguration(url: url)
    configuration.mergePolicy = .error
    let context = ModelContext(try ModelContainer(for: Trip.self, configurations: configuration))
    for attempt in 1...attempts {
        for trip in try context.fetch(FetchDescriptor<Trip>()) { trip.price += amount }
        do {
            try context.save()
            return
        } catch SwiftDataError.mergeConflict where attempt < attempts {
            context.rollback()  // drop the stale changes; the next fetch reads the newer rows
        }
    }
}
