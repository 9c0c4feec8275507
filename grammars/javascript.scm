; Tenure tag query for JavaScript (also JSX, .mjs, .cjs). Capture names: grammars/README.md.
; Mirrors typescript.scm without the type system, plus CommonJS exports and JSX.

; ---- definitions -------------------------------------------------------------
(class_declaration name: (identifier) @name) @def.class
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @def.method
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @def.field
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

; ---- inheritance as written --------------------------------------------------
(class_heritage (identifier) @name) @ref.extends
(class_heritage (member_expression object: (_) @receiver property: (property_identifier) @name)) @ref.extends

; ---- imports -----------------------------------------------------------------
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name alias: (identifier) @import.local))) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name !alias))) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (identifier) @import.local) source: (string (string_fragment) @import.module)) @import
(import_statement (import_clause (namespace_import (identifier) @import.local)) source: (string (string_fragment) @import.module)) @import
(import_statement source: (string (string_fragment) @import.module)) @import
(export_statement source: (string (string_fragment) @import.module)) @import
; import('./x') with a literal specifier is a (lazy) dependency on that module.
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module) .)) @import
((variable_declarator name: (identifier) @import.local value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.module) .))) @import (#eq? @_req "require"))
((variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @import.name) value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.module) .))) @import (#eq? @_req "require"))
((variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.local)) value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.module) .))) @import (#eq? @_req "require"))
; A bare require('./x') for its side effects.
((expression_statement (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.module) .))) @import (#eq? @_req "require"))

; ---- dynamic: targets computed at run time -----------------------------------
((call_expression function: (subscript_expression object: (_) @receiver index: [(identifier) (member_expression) (binary_expression) (template_string) (call_expression) (subscript_expression)])) @dynamic (#set! reason "computed member call obj[expr]()"))
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
