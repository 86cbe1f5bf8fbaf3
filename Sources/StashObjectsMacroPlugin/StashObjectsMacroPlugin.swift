import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that expands StashObjects' macros (declared in `StashObjectsMacros`).
@main
struct StashObjectsMacroPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ModelMacro.self]
}
