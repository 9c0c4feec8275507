; Tenure tag query for TypeScript (also used for TSX). Capture names: grammars/README.md.

; ---- definitions -------------------------------------------------------------
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(interface_declaration name: (type_identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(type_alias_declaration name: (type_identifier) @name) @def.type
(internal_module name: (identifier) @name) @def.namespace
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(function_signature name: (identifier) @name) @def.function
(method_definition name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @def.method
; Accessors are properties to their users: `get x()` and `set x(v)` are one symbol.
(method_definition "get" name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @def.accessor
(method_definition "set" name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @def.accessor
(method_signature name: (property_identifier) @name) @def.method
(abstract_method_signature name: (property_identifier) @name) @def.method
(public_field_definition name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @def.field
; Properties of an interface or of a named object type; those of an anonymous type (`opts: { a: number }`)
; belong to no symbol a dependent could name.
(interface_body (property_signature name: (property_identifier) @name) @def.field)
(type_alias_declaration value: (object_type (property_signature name: (property_identifier) @name) @def.field))
(enum_body (property_identifier) @name @def.field)
(enum_body (enum_assignment name: (property_identifier) @name) @def.field)
(required_parameter (accessibility_modifier) pattern: (identifier) @name) @def.field
(required_parameter "readonly" pattern: (identifier) @name) @def.field
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant)))
(program (variable_declaration (variable_declarator name: (identifier) @name) @def.constant))

; ---- calls and instantiations ------------------------------------------------
(call_expression function: (identifier) @name) @ref.call
(call_expression function: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @ref.call
(call_expression function: (subscript_expression object: (_) @receiver index: (string (string_fragment) @name))) @ref.call
; `obj[Symbol.iterator]()` calls the member named `[Symbol.iterator]`.
((call_expression function: (subscript_expression object: (_) @receiver index: (member_expression object: (identifier) @_s) @name)) @ref.call (#eq? @_s "Symbol") (#set! computed "true"))
; `super(...)` runs the base class's constructor.
((call_expression function: (super) @name) @ref.call (#set! name "constructor") (#set! receiver "super"))
(new_expression constructor: (identifier) @name) @ref.instantiate
(new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @ref.instantiate

; ---- type and value references -----------------------------------------------
((type_identifier) @ref.reference)
(arguments (identifier) @name) @ref.reference
(arguments (member_expression object: (_) @receiver property: (property_identifier) @name)) @ref.reference
(decorator (identifier) @name) @ref.call
(decorator (call_expression function: (identifier) @name)) @ref.call

; ---- data: reads and writes of fields, properties, constants, variables ------
; A member read: `this.closed`, `Foo.EMPTY`, `x.count`. A call through it (`x.f()`) is
; captured as a call above and wins; a call through a function-typed property is
; resolved as a read of the property.
(member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name) @ref.read
; The object of a member use, when it is a bare name: a read of the variable or constant
; it names; a type or module it names is no edge of its own (the member use is).
((member_expression object: (identifier) @name) @ref.read (#set! nameIs "receiver"))
; Bare names in expressions: module constants and variables, imported values. Names bound
; locally (@local below) are dropped by the extractor.
((identifier) @ref.read)
((shorthand_property_identifier) @ref.read)
(assignment_expression left: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @ref.write
(augmented_assignment_expression left: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @ref.write
(update_expression argument: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @ref.write
(assignment_expression left: (identifier) @name) @ref.write
(augmented_assignment_expression left: (identifier) @name) @ref.write
(update_expression argument: (identifier) @name) @ref.write
; Destructuring reads the properties it names: `const { value } = this`.
((variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name) value: (_) @receiver) @ref.read (#not-match? @receiver "^require\\s*\\("))
((variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @name)) value: (_) @receiver) @ref.read (#not-match? @receiver "^require\\s*\\("))
((variable_declarator name: (object_pattern (object_assignment_pattern left: (shorthand_property_identifier_pattern) @name)) value: (_) @receiver) @ref.read (#not-match? @receiver "^require\\s*\\("))
; `ArchType.Object` in a type reads the enum member.
(nested_type_identifier module: (identifier) @receiver name: (type_identifier) @name) @ref.read
; Member accesses by a computed name: counted, their target cannot be named.
(subscript_expression index: [(identifier) (binary_expression) (template_string) (call_expression) (subscript_expression)]) @computed.access

; ---- configuration keys and environment variables read by name ----------------
((member_expression object: (member_expression object: (identifier) @_p property: (property_identifier) @_e) @receiver property: (property_identifier) @name) @ref.read
  (#eq? @_p "process") (#eq? @_e "env") (#set! nameIs "env-var"))
((subscript_expression object: (member_expression object: (identifier) @_p property: (property_identifier) @_e) @receiver index: (string (string_fragment) @name)) @ref.read
  (#eq? @_p "process") (#eq? @_e "env") (#set! nameIs "env-var"))
((subscript_expression object: (member_expression object: (identifier) @_p property: (property_identifier) @_e) @receiver index: [(identifier) (member_expression) (binary_expression) (template_string) (call_expression)]) @dynamic
  (#eq? @_p "process") (#eq? @_e "env") (#set! nameIs "env-var"))
; `config.get('retry.max')` on a receiver named for configuration.
((call_expression function: (member_expression object: (_) @receiver property: (property_identifier) @_m) arguments: (arguments . (string (string_fragment) @name))) @ref.read
  (#match? @receiver "([Cc]onfig|[Cc]onf|[Cc]fg|[Ss]ettings|[Ee]nv|[Ee]nvironment|[Pp]roperties|[Pp]rops)$")
  (#any-of? @_m "get" "has" "getString" "getNumber" "getBoolean" "getInt" "getOrThrow" "getProperty") (#set! nameIs "config-key"))
((call_expression function: (member_expression object: (_) @receiver property: (property_identifier) @_m) arguments: (arguments . [(identifier) (member_expression) (binary_expression) (template_string)])) @dynamic
  (#match? @receiver "([Cc]onfig|[Cc]onf|[Cc]fg|[Ss]ettings|[Ee]nv|[Ee]nvironment|[Pp]roperties|[Pp]rops)$")
  (#any-of? @_m "get" "has" "getString" "getNumber" "getBoolean" "getInt" "getOrThrow" "getProperty") (#set! nameIs "config-key"))

; ---- local bindings: a bare name bound here means the local -----------------
(variable_declarator name: (identifier) @local)
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
(rest_pattern (identifier) @local)
(arrow_function parameter: (identifier) @local)
(catch_clause parameter: (identifier) @local)
(for_in_statement left: (identifier) @local)
(object_pattern (shorthand_property_identifier_pattern) @local)
(pair_pattern value: (identifier) @local)
(array_pattern (identifier) @local)
(assignment_pattern left: (identifier) @local)
(object_assignment_pattern left: (shorthand_property_identifier_pattern) @local)
(function_expression name: (identifier) @local)
(import_statement) @noread
(export_specifier alias: (_) @noread)
; Names that only bind, where no scope of a body holds them (a type's members, a signature without a body):
; `[key: string]: T`, `(args: Args) => void`, `export * as events from`. Never reads.
(index_signature name: (identifier) @noread)
(required_parameter pattern: (identifier) @noread)
(optional_parameter pattern: (identifier) @noread)
(rest_pattern (identifier) @noread)
(namespace_export (identifier) @noread)

; ---- inheritance as written --------------------------------------------------
(class_heritage (extends_clause value: (identifier) @name)) @ref.extends
(class_heritage (extends_clause value: (member_expression property: (property_identifier) @name))) @ref.extends
(class_heritage (implements_clause (type_identifier) @name)) @ref.implements
(class_heritage (implements_clause (generic_type name: (type_identifier) @name))) @ref.implements
(extends_type_clause (type_identifier) @name) @ref.extends
(extends_type_clause (generic_type name: (type_identifier) @name)) @ref.extends

; ---- imports -----------------------------------------------------------------
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name alias: (identifier) @import.local))) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name !alias))) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (identifier) @import.local) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (namespace_import (identifier) @import.local)) source: (string (string_fragment) @import.module)) @import
(import_statement source: (string (string_fragment) @import.module)) @import
; `export { a as b } from './x'` re-exports `a` of ./x as `b`; `export * from` any name (the bare pattern).
(export_statement (export_clause (export_specifier name: (identifier) @import.name alias: (identifier) @import.local)) source: (string (string_fragment) @import.module)) @import
(export_statement (export_clause (export_specifier name: (identifier) @import.name !alias)) source: (string (string_fragment) @import.module)) @import
(export_statement source: (string (string_fragment) @import.module)) @import
((variable_declarator name: (identifier) @import.local value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.module) .))) @import (#eq? @_req "require"))
((variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @import.name) value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.module) .))) @import (#eq? @_req "require"))

; ---- dynamic: targets computed at run time -----------------------------------
((call_expression function: (subscript_expression object: (_) @receiver index: [(identifier) (binary_expression) (template_string) (call_expression) (subscript_expression)])) @dynamic (#set! reason "computed member call obj[expr]()"))
((call_expression function: (subscript_expression object: (_) @receiver index: (member_expression) @_i)) @dynamic (#not-match? @_i "^Symbol\\.") (#set! reason "computed member call obj[expr]()"))
((call_expression function: (import) arguments: (arguments . [(identifier) (member_expression) (binary_expression) (template_string) (call_expression)])) @dynamic (#set! reason "dynamic import() of a computed module"))
((call_expression function: (identifier) @_f arguments: (arguments . [(identifier) (member_expression) (binary_expression) (template_string) (call_expression)])) @dynamic (#eq? @_f "require") (#set! reason "require() of a computed module"))
((call_expression function: (member_expression object: (identifier) @_r property: (property_identifier) @_m)) @dynamic (#eq? @_r "Reflect") (#any-of? @_m "apply" "get" "construct") (#set! reason "Reflect call"))
((call_expression function: (identifier) @_e) @dynamic (#eq? @_e "eval") (#set! reason "eval"))
((call_expression function: (member_expression property: (property_identifier) @_m)) @dynamic (#any-of? @_m "apply" "call") (#set! reason "Function.prototype.call/apply on a computed function"))

; ---- declared types of names (receiver typing) -------------------------------
(required_parameter (accessibility_modifier) pattern: (identifier) @typed.name type: (type_annotation (_) @typed.type)) @typed.member
(required_parameter pattern: (identifier) @typed.name type: (type_annotation (_) @typed.type)) @typed
; `m(this: MixedInParser)`: what `this` is inside, where a mixin or a function says so.
(required_parameter pattern: (this) @typed.name type: (type_annotation (_) @typed.type)) @typed
(optional_parameter pattern: (identifier) @typed.name type: (type_annotation (_) @typed.type)) @typed
(public_field_definition name: (property_identifier) @typed.name type: (type_annotation (_) @typed.type)) @typed.member
(public_field_definition name: (property_identifier) @typed.name value: (new_expression constructor: (identifier) @typed.type)) @typed.member
(property_signature name: (property_identifier) @typed.name type: (type_annotation (_) @typed.type)) @typed.member
(variable_declarator name: (identifier) @typed.name type: (type_annotation (_) @typed.type)) @typed
(variable_declarator name: (identifier) @typed.name value: (new_expression constructor: (identifier) @typed.type)) @typed
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @typed.name) right: (new_expression constructor: (identifier) @typed.type)) @typed.member
