/// One weak reference to a context, shared by all its models: registering a model retains
/// this box instead of forming a new weak reference per model.
final class ContextHandle {
    weak var context: ModelContext?
}
