import Foundation

extension PersistentModel {
    /// Empty storage for a new instance made with `init(backingData:)` instead of an initialiser,
    /// as SwiftData's `createBackingData()` gives.
    ///
    /// Every property reads its declared default (or the type's zero value) until it is set;
    /// fill the values with ``BackingData/setValue(forKey:to:)`` before making the model, or
    /// through the model's properties after.
    /// ```swift
    /// let data = Trip.createBackingData()
    /// data.setValue(forKey: \Trip.name, to: "Lisbon")
    /// let trip = Trip(backingData: data)   // no user initialiser ran
    /// ```
    public static func createBackingData() -> BackingData {
        if let layout = ModelLayout.known(Self.self) { return BackingData.make(layout: layout) }
        return BackingData.make()
    }
}

extension BackingData {
    /// Stores `value` for the property at `keyPath` in storage that no model owns yet (from
    /// ``PersistentModel/createBackingData()``), as SwiftData's `BackingData.setValue(forKey:to:)`.
    ///
    /// `let` properties can be given values this way too, and relationships: like a value an
    /// initialiser assigns, a related model set here gets its inverse updated when the new
    /// model is inserted. Once a model owns the storage, set
    /// its properties instead (that tracks the change and keeps inverses in sync); this call
    /// then does nothing and returns `false`.
    /// ```swift
    /// let data = Customer.createBackingData()
    /// data.setValue(forKey: \Customer.email, to: "a@example.com")
    /// let customer = Customer(backingData: data)
    /// ```
    @discardableResult
    public func setValue<M: PersistentModel, V>(forKey keyPath: KeyPath<M, V>, to value: V) -> Bool {
        guard status == .unmanaged, pk == 0, let layout, let slot = layout.slotByKeyPath[keyPath] else { return false }
        grow(to: slot + 1)
        values[slot] = value
        if slot < 64 { initSlotMask |= 1 << UInt64(slot) }  // as `_initialize` (an init accessor) records it
        return true
    }
}
