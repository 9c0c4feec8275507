; Tenure tag query for Python. Capture names: grammars/README.md.

; ---- definitions -------------------------------------------------------------
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
(module (expression_statement (assignment left: (identifier) @name) @def.constant))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @def.field)))

; ---- calls -------------------------------------------------------------------
(call function: (identifier) @name) @ref.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @ref.call
(decorator (identifier) @name) @ref.call
(decorator (attribute object: (_) @receiver attribute: (identifier) @name)) @ref.call
(decorator (call function: (identifier) @name)) @ref.call

; ---- references --------------------------------------------------------------
(type (identifier) @name) @ref.reference
(type (attribute attribute: (identifier) @name)) @ref.reference
(type (subscript value: (identifier) @name)) @ref.reference
(type (generic_type (identifier) @name)) @ref.reference
(argument_list (identifier) @name) @ref.reference
(argument_list (keyword_argument value: (identifier) @name)) @ref.reference

; ---- inheritance as written --------------------------------------------------
(class_definition superclasses: (argument_list (identifier) @name)) @ref.extends
(class_definition superclasses: (argument_list (attribute object: (_) @receiver attribute: (identifier) @name))) @ref.extends

; ---- imports -----------------------------------------------------------------
(import_statement name: (dotted_name) @import.module) @import
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.local)) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @import.module name: (dotted_name) @import.name) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @import.module name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.local)) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @import.module (wildcard_import) @import.wildcard) @import

; ---- dynamic: targets computed at run time -----------------------------------
((call function: (identifier) @_f arguments: (argument_list (_) @receiver . (string (string_content) @name))) @dynamic (#any-of? @_f "getattr" "setattr" "hasattr") (#set! reason "getattr with a literal name"))
((call function: (identifier) @_f arguments: (argument_list (_) . [(identifier) (attribute) (call) (binary_operator) (subscript) (concatenated_string)])) @dynamic (#any-of? @_f "getattr" "setattr") (#set! reason "getattr with a computed name"))
((call function: (identifier) @_f) @dynamic (#any-of? @_f "eval" "exec" "__import__") (#set! reason "eval/exec/__import__"))
((call function: (attribute object: (identifier) @_m attribute: (identifier) @_f)) @dynamic (#eq? @_m "importlib") (#eq? @_f "import_module") (#set! reason "importlib.import_module"))
((call function: (subscript value: (call function: (identifier) @_g))) @dynamic (#any-of? @_g "globals" "locals" "vars") (#set! reason "call through globals()/locals()"))
((call function: (subscript)) @dynamic (#set! reason "call through a computed subscript"))

; ---- declared types of names (receiver typing) -------------------------------
(typed_parameter (identifier) @typed.name type: (type) @typed.type) @typed
(typed_default_parameter name: (identifier) @typed.name type: (type) @typed.type) @typed
(class_definition body: (block (expression_statement (assignment left: (identifier) @typed.name type: (type) @typed.type) @typed.member)))
(assignment left: (identifier) @typed.name type: (type) @typed.type) @typed
(assignment left: (identifier) @typed.name right: (call function: (identifier) @typed.type)) @typed
(assignment left: (attribute object: (identifier) @_s attribute: (identifier) @typed.name) right: (call function: (identifier) @typed.type) (#eq? @_s "self")) @typed.member
(assignment left: (attribute object: (identifier) @_s attribute: (identifier) @typed.name) type: (type) @typed.type (#eq? @_s "self")) @typed.member
