/// One weak reference to a context, shared by all its models: registering a model retains
/// this box instead of forming a new weak reference per model.
///
/// Models can outlive their context. Their relationships and faulted attributes then still load
/// from the container's store, through a private context the handle creates on demand, so a
/// late read gives the stored value instead of a silent `nil` (`modelContext` stays `nil`).
final class ContextHandle {
    weak var context: ModelContext?
    let container: ModelContainer
    private var orphanContext: ModelContext?

    init(container: ModelContainer) { self.container = container }

    /// The live context, or a private one on the same container when it is gone.
    var loadingContext: ModelContext {
        if let context { return context }
        if let orphanContext { return orphanContext }
        let c = ModelContext(container)
        orphanContext = c
        return c
    }
}
