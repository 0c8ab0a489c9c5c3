import CSQLite

/// SQL functions for integer arithmetic that stops where Swift's traps, registered on every
/// connection, for the predicate translations of `+`, `-`, `*` and unary `-` on `Int` / `Int64`
/// (Arithmetic.swift):
/// ```sql
/// osd_add(t."n", ?)   osd_subtract(t."n", ?)   osd_multiply(t."n", ?)   osd_negate(t."n")
/// ```
/// SQLite's own `+` turns `9223372036854775807 + 1` into the REAL `9.2233720368547758e18`, so a
/// comparison would go on with a value Swift never computes (Swift traps). These compute
/// exactly as SQLite does for 64-bit integers, return NULL for a NULL operand, and on overflow
/// fail the statement with ``overflowMessage`` followed by the operator, which the fetch turns
/// into ``SwiftDataError/arithmeticOverflow``. Operands that are not integers (never the case
/// for an `Int` column or a captured `Int`) compute in floating point as SQLite's operators do.
enum CheckedArithmeticFunctions {
    /// The start of the error message of a statement whose checked arithmetic overflowed.
    static let overflowMessage = "osd: integer overflow in "

    enum Operation: CaseIterable {
        case add, subtract, multiply, negate

        var sqlName: String {
            switch self {
            case .add: "osd_add"
            case .subtract: "osd_subtract"
            case .multiply: "osd_multiply"
            case .negate: "osd_negate"
            }
        }
        /// The Swift operator, as error messages name it.
        var symbol: String {
            switch self {
            case .add: "+"
            case .subtract: "-"
            case .multiply: "*"
            case .negate: "unary -"
            }
        }
        var arity: Int32 { self == .negate ? 1 : 2 }
    }

    /// Registers `osd_add`, `osd_subtract`, `osd_multiply` and `osd_negate`.
    static func register(on db: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(
            db, Operation.add.sqlName, 2, flags, nil,
            { context, _, argv in
                CheckedArithmeticFunctions.evaluate(.add, context, argv)
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, Operation.subtract.sqlName, 2, flags, nil,
            { context, _, argv in
                CheckedArithmeticFunctions.evaluate(.subtract, context, argv)
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, Operation.multiply.sqlName, 2, flags, nil,
            { context, _, argv in
                CheckedArithmeticFunctions.evaluate(.multiply, context, argv)
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, Operation.negate.sqlName, 1, flags, nil,
            { context, _, argv in
                CheckedArithmeticFunctions.evaluate(.negate, context, argv)
            }, nil, nil, nil)
    }

    /// Sets the result of `operation` over the call's arguments.
    static func evaluate(
        _ operation: Operation, _ context: OpaquePointer?, _ argv: UnsafeMutablePointer<OpaquePointer?>?
    ) {
        guard let argv else {
            sqlite3_result_null(context)
            return
        }
        let a = argv[0]
        let b = operation.arity == 2 ? argv[1] : nil
        if sqlite3_value_type(a) == SQLITE_NULL || (operation.arity == 2 && sqlite3_value_type(b) == SQLITE_NULL) {
            sqlite3_result_null(context)
            return
        }
        let integers =
            sqlite3_value_numeric_type(a) == SQLITE_INTEGER
            && (operation.arity == 1 || sqlite3_value_numeric_type(b) == SQLITE_INTEGER)
        guard integers else {
            let x = sqlite3_value_double(a)
            let y = operation.arity == 2 ? sqlite3_value_double(b) : 0
            switch operation {
            case .add: sqlite3_result_double(context, x + y)
            case .subtract: sqlite3_result_double(context, x - y)
            case .multiply: sqlite3_result_double(context, x * y)
            case .negate: sqlite3_result_double(context, -x)
            }
            return
        }
        let x = sqlite3_value_int64(a)
        let y = operation.arity == 2 ? sqlite3_value_int64(b) : 0
        let (value, overflow): (Int64, Bool)
        switch operation {
        case .add: (value, overflow) = x.addingReportingOverflow(y)
        case .subtract: (value, overflow) = x.subtractingReportingOverflow(y)
        case .multiply: (value, overflow) = x.multipliedReportingOverflow(by: y)
        case .negate: (value, overflow) = Int64(0).subtractingReportingOverflow(x)
        }
        if overflow {
            // The message names the operator only: bound values never appear in messages.
            sqlite3_result_error(context, overflowMessage + operation.symbol, -1)
        } else {
            sqlite3_result_int64(context, value)
        }
    }
}
