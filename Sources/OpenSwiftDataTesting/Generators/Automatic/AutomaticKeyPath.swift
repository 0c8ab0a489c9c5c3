import OpenSwiftData

/// A model key path seen without its static types: lets automatic data write an `Any` value
/// (checked against the property's type) into storage or a relationship.
protocol _AutoKeyPath {
    /// Stores `value` (`nil`: `Optional.none`) in storage no model owns yet; `false` if it does not fit.
    func _store(_ value: Any?, in data: BackingData) -> Bool
    /// Stores the empty value of a relationship (`nil` or `[]`) in storage no model owns yet.
    func _storeEmpty(in data: BackingData)
    /// Sets a relationship of `root` to `models` (a to-one takes the first, or nil when empty).
    func _assign(_ models: [any PersistentModel], to root: any PersistentModel)
    /// Sets an attribute of a live model (`nil`: `Optional.none`); `false` if it does not fit or is a `let`.
    func _set(_ value: Any?, on root: any PersistentModel) -> Bool
}

extension KeyPath: _AutoKeyPath where Root: PersistentModel {
    static func typed(_ value: Any?) -> Value? {
        if let value { return value as? Value }
        return (Value.self as? any ExpressibleByNilLiteral.Type).map { $0.init(nilLiteral: ()) as! Value }
    }

    func _store(_ value: Any?, in data: BackingData) -> Bool {
        guard let v = Self.typed(value) else { return false }
        return data.setValue(forKey: self, to: v)
    }

    func _storeEmpty(in data: BackingData) {
        if let array = Value.self as? any _AutoModelArray.Type {
            _ = _store(array._make([]), in: data)
        } else {
            _ = _store(nil, in: data)
        }
    }

    func _set(_ value: Any?, on root: any PersistentModel) -> Bool {
        guard let writable = self as? ReferenceWritableKeyPath<Root, Value>, let model = root as? Root,
            let v = Self.typed(value)
        else { return false }
        model[keyPath: writable] = v
        return true
    }

    func _assign(_ models: [any PersistentModel], to root: any PersistentModel) {
        guard let writable = self as? ReferenceWritableKeyPath<Root, Value>, let model = root as? Root else { return }
        let value: Value?
        if let array = Value.self as? any _AutoModelArray.Type {
            value = array._make(models) as? Value
        } else {
            value = Self.typed(models.first.map { $0 as Any })
        }
        if let value { model[keyPath: writable] = value }
    }
}

/// `[M]` or `[M]?` (the CloudKit style) for a model type `M`, seen through a metatype.
protocol _AutoModelArray {
    /// The models of type `M` among `models`, as a value of this type.
    static func _make(_ models: [any PersistentModel]) -> Any
}

extension Array: _AutoModelArray where Element: PersistentModel {
    static func _make(_ models: [any PersistentModel]) -> Any { models.compactMap { $0 as? Element } }
}

extension Optional: _AutoModelArray where Wrapped: _AutoModelArray {
    /// A present array (`[]` when `models` is empty), as a `[M]? = []` declaration starts.
    static func _make(_ models: [any PersistentModel]) -> Any { Optional(Wrapped._make(models) as! Wrapped) as Any }
}
