/// `text` as a C string for the duration of `body`, or NULL for nil: the backends' optional
/// arguments (a server, a sink, a property), the C library's report.
package func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
