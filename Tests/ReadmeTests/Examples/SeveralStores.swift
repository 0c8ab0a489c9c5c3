import SwiftData

@Model final class Preference {
    @Attribute(.unique) var key: String
    var value: String
    init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// Trips (with the stops they reach) in one file and preferences in another: each model is
/// stored by the configuration whose schema lists it, and one context reads and saves both.
func openSplitStores(in directory: URL) throws -> ModelContainer {
    let trips = ModelConfiguration(
        "trips", schema: Schema([Trip.self]),
        url: directory.appendingPathComponent("trips.store"))
    let preferences = ModelConfiguration(
        "preferences", schema: Schema([Preference.self]),
        url: directory.appendingPathComponent("preferences.store"))
    return try ModelContainer(for: Schema([Trip.self, Preference.self]), configurations: trips, preferences)
}
