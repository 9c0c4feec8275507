; Tenure tag query for Python. Capture names: grammars/README.md.

; ---- definitions -------------------------------------------------------------
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
(module (expression_statement (assignment left: (identifier) @name) @def.constant))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @def.field)))
; `self.x = …` in a method defines the instance attribute x (the extractor moves it to the
; class); a later assignment to it is a write of the same symbol.
; The definition is the target `self.x` alone: what the right side calls is the method's doing.
((assignment left: (attribute object: (identifier) @_s attribute: (identifier) @name) @def.field) (#eq? @_s "self"))
; Properties are fields to their users: `@property def x` and `@x.setter def x` are one symbol.
((decorated_definition (decorator (identifier) @_p) definition: (function_definition name: (identifier) @name) @def.accessor) (#any-of? @_p "property" "cached_property"))
((decorated_definition (decorator (attribute attribute: (identifier) @_p)) definition: (function_definition name: (identifier) @name) @def.accessor) (#any-of? @_p "setter" "getter" "deleter" "cached_property"))

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

; ---- data: reads and writes of attributes and module globals ----------------
; An attribute read: `self.closed`, `policy.MAX_ATTEMPTS`; a call through it is a call above.
(attribute object: (_) @receiver attribute: (identifier) @name) @ref.read
((attribute object: (identifier) @name) @ref.read (#set! nameIs "receiver"))
; Bare names in expressions: module globals, imported values (locals dropped by the extractor).
; Only where an expression can stand (the parents the grammar lets hold one): a catch-all
; `((identifier) @ref.read)` also matched every declared, bound, called and member name (43% of all
; matches on Django, each a node object to build, nearly all dropped) and made reads of what lambdas,
; `except … as e`, `with … as f`, unpacking targets and `case` captures bind.
(argument_list (identifier) @ref.read)
(as_pattern (identifier) @ref.read)
(assert_statement (identifier) @ref.read)
(assignment right: (identifier) @ref.read)
(augmented_assignment right: (identifier) @ref.read)
(await (identifier) @ref.read)
(binary_operator (identifier) @ref.read)
(boolean_operator (identifier) @ref.read)
(chevron (identifier) @ref.read)
(comparison_operator (identifier) @ref.read)
(conditional_expression (identifier) @ref.read)
(default_parameter value: (identifier) @ref.read)
(delete_statement (identifier) @ref.read)
(dictionary_splat (identifier) @ref.read)
(elif_clause (identifier) @ref.read)
(except_clause (identifier) @ref.read)
(exec_statement (identifier) @ref.read)
(expression_list (identifier) @ref.read)
(expression_statement (identifier) @ref.read)
(for_in_clause (identifier) @ref.read)
(for_statement (identifier) @ref.read)
(format_expression (identifier) @ref.read)
(generator_expression (identifier) @ref.read)
(if_clause (identifier) @ref.read)
(if_statement (identifier) @ref.read)
(interpolation (identifier) @ref.read)
(keyword_argument value: (identifier) @ref.read)
(lambda (identifier) @ref.read)
(list (identifier) @ref.read)
(list_comprehension (identifier) @ref.read)
(list_splat (identifier) @ref.read)
(match_statement (identifier) @ref.read)
(named_expression (identifier) @ref.read)
(not_operator (identifier) @ref.read)
(pair (identifier) @ref.read)
(parenthesized_expression (identifier) @ref.read)
(print_statement (identifier) @ref.read)
(raise_statement (identifier) @ref.read)
(return_statement (identifier) @ref.read)
(set (identifier) @ref.read)
(set_comprehension (identifier) @ref.read)
(slice (identifier) @ref.read)
(subscript (identifier) @ref.read)
(tuple (identifier) @ref.read)
(typed_default_parameter value: (identifier) @ref.read)
(unary_operator (identifier) @ref.read)
(while_statement (identifier) @ref.read)
(with_item (identifier) @ref.read)
(yield (identifier) @ref.read)
; In a `case`, a dotted name is a value read (`case Color.RED`, `Point(x=Origin.X)`) and a bare one
; binds (`case other`); the class a class pattern matches is read (`case Point(…)`, `case shapes.Point(…)`).
; As in an attribute, the first part is read as a receiver and each later part from the part before it.
; (Dotted names in imports are no reads: their first part is in a @noread statement, later parts have no pattern.)
((dotted_name . (identifier) @name . ".") @ref.read (#set! nameIs "receiver"))
(case_pattern (dotted_name (identifier) @receiver . "." . (identifier) @name @ref.read))
(keyword_pattern (dotted_name (identifier) @receiver . "." . (identifier) @name @ref.read))
(dict_pattern (dotted_name (identifier) @receiver . "." . (identifier) @name @ref.read))
(union_pattern (dotted_name (identifier) @receiver . "." . (identifier) @name @ref.read))
(class_pattern (dotted_name (identifier) @receiver . "." . (identifier) @name @ref.read))
(class_pattern (dotted_name . (identifier) @ref.read .))
(assignment left: (attribute object: (_) @receiver attribute: (identifier) @name)) @ref.write
(augmented_assignment left: (attribute object: (_) @receiver attribute: (identifier) @name)) @ref.write
(assignment left: (identifier) @name) @ref.write
(augmented_assignment left: (identifier) @name) @ref.write

; ---- configuration keys and environment variables read by name ----------------
((subscript value: (attribute object: (identifier) @_o attribute: (identifier) @_e) @receiver subscript: (string (string_content) @name)) @ref.read
  (#eq? @_o "os") (#eq? @_e "environ") (#set! nameIs "env-var"))
((call function: (attribute object: (attribute object: (identifier) @_o attribute: (identifier) @_e) @receiver attribute: (identifier) @_m) arguments: (argument_list . (string (string_content) @name))) @ref.read
  (#eq? @_o "os") (#eq? @_e "environ") (#any-of? @_m "get" "setdefault" "pop") (#set! nameIs "env-var"))
((call function: (attribute object: (identifier) @receiver attribute: (identifier) @_m) arguments: (argument_list . (string (string_content) @name))) @ref.read
  (#eq? @receiver "os") (#any-of? @_m "getenv" "putenv" "unsetenv") (#set! nameIs "env-var"))
((call function: (identifier) @_m arguments: (argument_list . (string (string_content) @name))) @ref.read (#eq? @_m "getenv") (#set! nameIs "env-var"))
((subscript value: (identifier) @receiver subscript: (string (string_content) @name)) @ref.read (#eq? @receiver "environ") (#set! nameIs "env-var"))
((call function: (attribute object: (_) @receiver attribute: (identifier) @_m) arguments: (argument_list . (string (string_content) @name))) @ref.read
  (#match? @receiver "([Cc]onfig|[Cc]onf|[Cc]fg|[Ss]ettings|[Pp]roperties)$") (#any-of? @_m "get" "getint" "getfloat" "getboolean") (#set! nameIs "config-key"))
((subscript value: (attribute object: (identifier) @_o attribute: (identifier) @_e) @receiver subscript: [(identifier) (attribute) (call) (binary_operator)]) @dynamic
  (#eq? @_o "os") (#eq? @_e "environ") (#set! nameIs "env-var"))
((call function: (attribute object: (identifier) @receiver attribute: (identifier) @_m) arguments: (argument_list . [(identifier) (attribute) (call) (binary_operator)])) @dynamic
  (#eq? @receiver "os") (#eq? @_m "getenv") (#set! nameIs "env-var"))

; ---- local bindings: a bare name bound here means the local -----------------
(parameters (identifier) @local)
(default_parameter name: (identifier) @local)
(typed_parameter (identifier) @local)
(typed_default_parameter name: (identifier) @local)
(list_splat_pattern (identifier) @local)
(dictionary_splat_pattern (identifier) @local)
(lambda_parameters (identifier) @local)
(assignment left: (identifier) @local)
(assignment left: (pattern_list (identifier) @local))
(assignment left: (tuple_pattern (identifier) @local))
(augmented_assignment left: (identifier) @local)
(for_statement left: (identifier) @local)
(for_statement left: (pattern_list (identifier) @local))
(for_statement left: (tuple_pattern (identifier) @local))
(for_in_clause left: (identifier) @local)
(for_in_clause left: (pattern_list (identifier) @local))
(for_in_clause left: (tuple_pattern (identifier) @local))
(as_pattern alias: (as_pattern_target (identifier) @local))
(named_expression name: (identifier) @local)
(global_statement (identifier) @global)
(global_statement) @noread
(nonlocal_statement) @noread
(import_statement) @noread
(import_from_statement) @noread
(future_import_statement) @noread
(keyword_argument name: (identifier) @noread)

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
