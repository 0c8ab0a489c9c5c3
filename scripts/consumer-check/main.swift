// The consumer check's program: the README's trips example (Trips.swift, copied from
// Tests/ReadmeTests/Examples/) built against a tagged release, then the store reopened.
import SwiftData

let url = URL(fileURLWithPath: CommandLine.arguments[1])
for line in try planTrips(at: url) { print(line) }
let reopened = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
print("stored: \(try reopened.fetchCount(FetchDescriptor<Trip>())) trips, \(try reopened.fetchCount(FetchDescriptor<Stop>())) stops")
