import StashObjectsMacroExpansion
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// The compiler plugin that expands StashObjects' macros (declared in `StashObjectsMacros`).
///
/// The expansion itself lives in `StashObjectsMacroExpansion`, an ordinary library target,
/// so that the tests can call it without depending on a macro target: SwiftPM builds a test
/// product that depends on a macro target for the host, and with it every module the tests
/// link, which compiled the whole package twice.
@main
struct StashObjectsMacroPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ModelMacro.self]
}

/// `@Model` as the compiler names it (`StashObjectsMacroPlugin.ModelMacro`, the module and
/// type `#externalMacro` gives); the plugin looks macros up by that qualified name.
struct ModelMacro: ExtensionMacro {
    static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try StashObjectsMacroExpansion.ModelMacro.expansion(
            of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context
        )
    }
}
