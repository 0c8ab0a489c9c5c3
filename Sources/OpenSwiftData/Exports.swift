// Model code written for SwiftData uses Observation (through @Model) and Foundation
// (#Predicate, SortDescriptor, Date, UUID …) after importing only SwiftData; so do we.
@_exported import Foundation
@_exported import Observation
