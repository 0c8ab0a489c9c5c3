extension Schema.Entity {
    /// The model class this entity describes, for code that walks a schema generically (data
    /// generators, schema-derived checks).
    ///
    /// ```swift
    /// for entity in schema.entities { print(entity.name, entity.modelType) }
    /// ```
    public var modelType: any PersistentModel.Type { layout.type }
}
