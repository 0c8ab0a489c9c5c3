/// One weak reference to a context, shared by all its models: registering a model retains
/// this box instead of forming a new weak reference per model.
///
/// Models can outlive their context. Their relationships and faulted attributes then still load
/// from the container's store, through a private context the handle creates on demand, so a
/// late read gives the stored value instead of a silent `nil` (`modelContext` stays `nil`).
final class ContextHandle {
    weak var context: ModelContext?
    /// The store the models load from (never the container: models must not keep it alive).
    let stack: ContainerStack
    private var orphanContext: ModelContext?

    init(stack: ContainerStack) { self.stack = stack }

    /// The live context, or a private one on the same container when it is gone.
    var loadingContext: ModelContext {
        if let context { return context }
        if let orphanContext { return orphanContext }
        let c = ModelContext(stack: stack)
        orphanContext = c
        return c
    }
}
