; Tenure tag query for JavaScript (also JSX, .mjs, .cjs). Capture names: grammars/README.md.
; Mirrors typescript.scm without the type system, plus CommonJS exports and JSX.

; ---- definitions -------------------------------------------------------------
(class_declaration name: (identifier) @name) @def.class
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(method_definition name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @def.method
; Accessors are properties to their users: `get x()` and `set x(v)` are one symbol.
(method_definition "get" name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @def.accessor
(method_definition "set" name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @def.accessor
(field_definition property: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @def.field
; Fields assigned in the constructor are the class's fields in plain JavaScript.
((method_definition
  name: (property_identifier) @_ctor
  body: (statement_block
    (expression_statement
      (assignment_expression left: (member_expression object: (this) property: (property_identifier) @name)) @def.field)))
  (#eq? @_ctor "constructor"))
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @def.function
(variable_declarator name: (identifier) @name value: (class)) @def.class
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @def.constant)))
(program (variable_declaration (variable_declarator name: (identifier) @name) @def.constant))
; CommonJS: `exports.x = …` and `module.exports.x = …` define x (a function, a class or
; a value; the most specific kind wins). `exports.helper = helper` only exports a local
; definition: it is not a second one.
((program (expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)]) @def.function))
  (#eq? @_exports "exports"))
((program (expression_statement
  (assignment_expression
    left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)]) @def.function))
  (#eq? @_module "module") (#eq? @_exports "exports"))
((program (expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
    right: (class)) @def.class))
  (#eq? @_exports "exports"))
((program (expression_statement
  (assignment_expression
    left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) property: (property_identifier) @name)
    right: (class)) @def.class))
  (#eq? @_module "module") (#eq? @_exports "exports"))
((program (expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
    right: (_) @_value) @def.constant))
  (#eq? @_exports "exports") (#not-eq? @_value @name))
((program (expression_statement
  (assignment_expression
    left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) property: (property_identifier) @name)
    right: (_) @_value) @def.constant))
  (#eq? @_module "module") (#eq? @_exports "exports") (#not-eq? @_value @name))
; `module.exports = class Name {…}` / `= function name() {…}`: the expression's own name.
((program (expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: [(class name: (identifier) @name) @def.class (function_expression name: (identifier) @name) @def.function])))
  (#eq? @_module "module") (#eq? @_exports "exports"))

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

; ---- value references --------------------------------------------------------
(arguments (identifier) @name) @ref.reference
(arguments (member_expression object: (_) @receiver property: (property_identifier) @name)) @ref.reference
(decorator (identifier) @name) @ref.call
(decorator (call_expression function: (identifier) @name)) @ref.call
; JSX: <Widget/> hands Widget to the renderer (createElement(Widget)); lowercase tags are HTML.
((jsx_opening_element name: (identifier) @name) @ref.reference (#match? @name "^[A-Z]"))
((jsx_self_closing_element name: (identifier) @name) @ref.reference (#match? @name "^[A-Z]"))
(jsx_opening_element name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @ref.reference
(jsx_self_closing_element name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @ref.reference

; ---- data: reads and writes of fields, properties, constants, variables ------
; As in typescript.scm: member reads, the bare object of a member use, bare names in
; expressions (locals dropped by the extractor), writes, destructuring.
(member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name) @ref.read
((member_expression object: (identifier) @name) @ref.read (#set! nameIs "receiver"))
((identifier) @ref.read)
((shorthand_property_identifier) @ref.read)
(assignment_expression left: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @ref.write
(augmented_assignment_expression left: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @ref.write
(update_expression argument: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @ref.write
(assignment_expression left: (identifier) @name) @ref.write
(augmented_assignment_expression left: (identifier) @name) @ref.write
(update_expression argument: (identifier) @name) @ref.write
((variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name) value: (_) @receiver) @ref.read (#not-match? @receiver "^require\\s*\\("))
((variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @name)) value: (_) @receiver) @ref.read (#not-match? @receiver "^require\\s*\\("))
((variable_declarator name: (object_pattern (object_assignment_pattern left: (shorthand_property_identifier_pattern) @name)) value: (_) @receiver) @ref.read (#not-match? @receiver "^require\\s*\\("))
(subscript_expression index: [(identifier) (binary_expression) (template_string) (call_expression) (subscript_expression)]) @computed.access

; ---- configuration keys and environment variables read by name ----------------
((member_expression object: (member_expression object: (identifier) @_p property: (property_identifier) @_e) @receiver property: (property_identifier) @name) @ref.read
  (#eq? @_p "process") (#eq? @_e "env") (#set! nameIs "env-var"))
((subscript_expression object: (member_expression object: (identifier) @_p property: (property_identifier) @_e) @receiver index: (string (string_fragment) @name)) @ref.read
  (#eq? @_p "process") (#eq? @_e "env") (#set! nameIs "env-var"))
((subscript_expression object: (member_expression object: (identifier) @_p property: (property_identifier) @_e) @receiver index: [(identifier) (member_expression) (binary_expression) (template_string) (call_expression)]) @dynamic
  (#eq? @_p "process") (#eq? @_e "env") (#set! nameIs "env-var"))
((call_expression function: (member_expression object: (_) @receiver property: (property_identifier) @_m) arguments: (arguments . (string (string_fragment) @name))) @ref.read
  (#match? @receiver "([Cc]onfig|[Cc]onf|[Cc]fg|[Ss]ettings|[Ee]nv|[Ee]nvironment|[Pp]roperties|[Pp]rops)$")
  (#any-of? @_m "get" "has" "getString" "getNumber" "getBoolean" "getInt" "getOrThrow" "getProperty") (#set! nameIs "config-key"))
((call_expression function: (member_expression object: (_) @receiver property: (property_identifier) @_m) arguments: (arguments . [(identifier) (member_expression) (binary_expression) (template_string)])) @dynamic
  (#match? @receiver "([Cc]onfig|[Cc]onf|[Cc]fg|[Ss]ettings|[Ee]nv|[Ee]nvironment|[Pp]roperties|[Pp]rops)$")
  (#any-of? @_m "get" "has" "getString" "getNumber" "getBoolean" "getInt" "getOrThrow" "getProperty") (#set! nameIs "config-key"))

; ---- local bindings: a bare name bound here means the local -----------------
(variable_declarator name: (identifier) @local)
(formal_parameters (identifier) @local)
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
; JSX tag names are elements, not values (an upper-case one is a reference above).
(jsx_opening_element name: (identifier) @noread)
(jsx_closing_element name: (identifier) @noread)
(jsx_self_closing_element name: (identifier) @noread)
(jsx_attribute (property_identifier) @noread)

; ---- inheritance as written --------------------------------------------------
(class_heritage (identifier) @name) @ref.extends
(class_heritage (member_expression object: (_) @receiver property: (property_identifier) @name)) @ref.extends

; ---- imports -----------------------------------------------------------------
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name alias: (identifier) @import.local))) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name !alias))) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (identifier) @import.local) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (namespace_import (identifier) @import.local)) source: (string (string_fragment) @import.module)) @import
(import_statement source: (string (string_fragment) @import.module)) @import
; `export { a as b } from './x'` re-exports `a` of ./x as `b`; `export * from` any name (the bare pattern).
(export_statement (export_clause (export_specifier name: (identifier) @import.name alias: (identifier) @import.local)) source: (string (string_fragment) @import.module)) @import
(export_statement (export_clause (export_specifier name: (identifier) @import.name !alias)) source: (string (string_fragment) @import.module)) @import
; `export { default as b } from './x'`: JavaScript's grammar spells `default` as a keyword, not an identifier.
(export_statement (export_clause (export_specifier name: "default" @import.name alias: (identifier) @import.local)) source: (string (string_fragment) @import.module)) @import
(export_statement (export_clause (export_specifier name: "default" @import.name !alias)) source: (string (string_fragment) @import.module)) @import
(export_statement source: (string (string_fragment) @import.module)) @import
; import('./x') with a literal specifier is a (lazy) dependency on that module.
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module) .)) @import
((variable_declarator name: (identifier) @import.local value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.module) .))) @import (#eq? @_req "require"))
((variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @import.name) value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.module) .))) @import (#eq? @_req "require"))
((variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.local)) value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.module) .))) @import (#eq? @_req "require"))
; A bare require('./x') for its side effects.
((expression_statement (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.module) .))) @import (#eq? @_req "require"))

; ---- dynamic: targets computed at run time -----------------------------------
((call_expression function: (subscript_expression object: (_) @receiver index: [(identifier) (binary_expression) (template_string) (call_expression) (subscript_expression)])) @dynamic (#set! reason "computed member call obj[expr]()"))
((call_expression function: (subscript_expression object: (_) @receiver index: (member_expression) @_i)) @dynamic (#not-match? @_i "^Symbol\\.") (#set! reason "computed member call obj[expr]()"))
((call_expression function: (import) arguments: (arguments . [(identifier) (member_expression) (binary_expression) (template_string) (call_expression)])) @dynamic (#set! reason "dynamic import() of a computed module"))
((call_expression function: (identifier) @_f arguments: (arguments . [(identifier) (member_expression) (binary_expression) (template_string) (call_expression)])) @dynamic (#eq? @_f "require") (#set! reason "require() of a computed module"))
((call_expression function: (member_expression object: (identifier) @_r property: (property_identifier) @_m)) @dynamic (#eq? @_r "Reflect") (#any-of? @_m "apply" "get" "construct") (#set! reason "Reflect call"))
((call_expression function: (identifier) @_e) @dynamic (#eq? @_e "eval") (#set! reason "eval"))
((new_expression constructor: (identifier) @_f) @dynamic (#eq? @_f "Function") (#set! reason "new Function: code built at run time"))
((call_expression function: (member_expression property: (property_identifier) @_m)) @dynamic (#any-of? @_m "apply" "call") (#set! reason "Function.prototype.call/apply on a computed function"))

; ---- what names hold (receiver typing) ---------------------------------------
(variable_declarator name: (identifier) @typed.name value: (new_expression constructor: (identifier) @typed.type)) @typed
(variable_declarator name: (identifier) @typed.name value: (new_expression constructor: (member_expression property: (property_identifier) @typed.type))) @typed
(field_definition property: (property_identifier) @typed.name value: (new_expression constructor: (identifier) @typed.type)) @typed.member
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @typed.name) right: (new_expression constructor: (identifier) @typed.type)) @typed.member
