; Tenure tag query for Go. Capture names: grammars/README.md.

; ---- package -----------------------------------------------------------------
(package_clause (package_identifier) @name) @package

; ---- definitions -------------------------------------------------------------
; One type_spec per name, also inside `type ( … )` groups. A struct is a class, an
; interface an interface, anything else (named types, aliases) a type; when one
; node matches several patterns the more specific kind wins.
(type_spec name: (type_identifier) @name type: (struct_type)) @def.class
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name) @def.type
(type_alias name: (type_identifier) @name) @def.type
(function_declaration name: (identifier) @name) @def.function
; A method is declared outside its type: @method.receiver names the type it belongs to.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @method.receiver
        (pointer_type (type_identifier) @method.receiver)
        (generic_type type: (type_identifier) @method.receiver)
        (pointer_type (generic_type type: (type_identifier) @method.receiver))
      ]))
  name: (field_identifier) @name) @def.method
(interface_type (method_elem name: (field_identifier) @name) @def.method)
; `a, b int` is one field_declaration: the first name takes the declaration node,
; each later one its own name node.
; Only a named struct's fields: the fields of an anonymous struct (`var g struct{ size int }`)
; belong to no type a dependent could name.
(type_spec type: (struct_type (field_declaration_list (field_declaration name: (field_identifier) @name) @def.field)))
(type_spec type: (struct_type (field_declaration_list (field_declaration (field_identifier) "," (field_identifier) @name @def.field))))
; Package-level constants and variables.
(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (const_declaration (const_spec (identifier) "," (identifier) @name @def.constant)))
(source_file (var_declaration (var_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec (identifier) "," (identifier) @name @def.constant)))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @def.constant)))
(source_file (var_declaration (var_spec_list (var_spec (identifier) "," (identifier) @name @def.constant))))
(source_file (var_declaration (var_spec name: (identifier) @name value: (expression_list . (func_literal) .)) @def.function))

; ---- calls and instantiations ------------------------------------------------
; Built-in functions are not uses of anything in the workspace.
((call_expression function: (identifier) @name) @ref.call
  (#not-any-of? @name "append" "cap" "clear" "close" "complex" "copy" "delete" "imag" "len" "make" "max" "min" "new" "panic" "print" "println" "real" "recover"))
(call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @ref.call
; Composite literals build a value of the named type; `new(T)` allocates one.
(composite_literal type: (type_identifier) @name) @ref.instantiate
(composite_literal type: (generic_type type: (type_identifier) @name)) @ref.instantiate
(composite_literal type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)) @ref.instantiate
(composite_literal type: (generic_type type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))) @ref.instantiate
((call_expression function: (identifier) @_new arguments: (argument_list . (type_identifier) @name .)) @ref.instantiate (#eq? @_new "new"))
((call_expression function: (identifier) @_new arguments: (argument_list . (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name) .)) @ref.instantiate (#eq? @_new "new"))

; ---- type and value references -----------------------------------------------
; Predeclared types are not uses of anything in the workspace.
((type_identifier) @ref.reference
  (#not-any-of? @ref.reference "any" "bool" "byte" "comparable" "complex64" "complex128" "error" "float32" "float64" "int" "int8" "int16" "int32" "int64" "rune" "string" "uint" "uint8" "uint16" "uint32" "uint64" "uintptr"))
(qualified_type package: (package_identifier) @receiver name: (type_identifier) @name) @ref.reference
(argument_list (identifier) @name) @ref.reference
(argument_list (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @ref.reference

; ---- data: reads and writes of struct fields and package variables ----------
; A field or package-member read: `t.count`, `config.Limit`; a call through it is a call above.
(selector_expression operand: (_) @receiver field: (field_identifier) @name) @ref.read
; The operand of a selector, when it is a bare name: a read of the variable it names;
; a package or type it names is no edge of its own (the selector is).
((selector_expression operand: (identifier) @name) @ref.read (#set! nameIs "receiver"))
; Bare names in expressions: package variables and constants (locals dropped by the extractor).
((identifier) @ref.read (#not-eq? @ref.read "_"))
(assignment_statement left: (expression_list (selector_expression operand: (_) @receiver field: (field_identifier) @name))) @ref.write
((assignment_statement left: (expression_list (identifier) @name)) @ref.write (#not-eq? @name "_"))
(inc_statement (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @ref.write
(dec_statement (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @ref.write
(inc_statement (identifier) @name) @ref.write
(dec_statement (identifier) @name) @ref.write

; ---- configuration keys and environment variables read by name ----------------
((call_expression function: (selector_expression operand: (identifier) @receiver field: (field_identifier) @_f) arguments: (argument_list . (interpreted_string_literal (interpreted_string_literal_content) @name))) @ref.read
  (#eq? @receiver "os") (#any-of? @_f "Getenv" "LookupEnv") (#set! nameIs "env-var"))
((call_expression function: (selector_expression operand: (identifier) @receiver field: (field_identifier) @_f) arguments: (argument_list . (interpreted_string_literal (interpreted_string_literal_content) @name))) @ref.read
  (#eq? @receiver "viper") (#match? @_f "^(Get|Get[A-Z][A-Za-z0-9]*|IsSet)$") (#set! nameIs "config-key"))
((call_expression function: (selector_expression operand: (identifier) @receiver field: (field_identifier) @_f) arguments: (argument_list . [(identifier) (selector_expression) (call_expression) (binary_expression)])) @dynamic
  (#eq? @receiver "os") (#any-of? @_f "Getenv" "LookupEnv") (#set! nameIs "env-var"))

; ---- local bindings: a bare name bound here means the local -----------------
(parameter_declaration name: (identifier) @local)
(variadic_parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(var_spec name: (identifier) @local)
(const_spec name: (identifier) @local)
(range_clause left: (expression_list (identifier) @local))
(type_switch_statement alias: (expression_list (identifier) @local))
(receive_statement left: (expression_list (identifier) @local))
(package_clause) @noread
(import_declaration) @noread
; `T{size: 1}`: the key names a field of T, written by the literal, not a variable read.
(keyed_element key: (literal_element (identifier) @noread))

; ---- embedding: Go's inheritance as written ------------------------------------
; An embedded field (no name) or an embedded interface promotes the embedded type's
; methods: the nearest thing Go has to extends.
(field_declaration_list (field_declaration !name type: [(type_identifier) @name (pointer_type (type_identifier) @name) (generic_type type: (type_identifier) @name)]) @ref.extends)
(field_declaration_list (field_declaration !name type: [(qualified_type package: (package_identifier) @receiver name: (type_identifier) @name) (pointer_type (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))]) @ref.extends)
(interface_type (type_elem . (type_identifier) @name .) @ref.extends)
(interface_type (type_elem . (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name) .) @ref.extends)

; ---- imports -----------------------------------------------------------------
; `import . "x"` brings every exported name into scope; `import _ "x"` only runs init.
(import_spec name: (dot) @import.wildcard path: (interpreted_string_literal (interpreted_string_literal_content) @import.module)) @import
(import_spec name: [(package_identifier) (blank_identifier)] @import.local path: (interpreted_string_literal (interpreted_string_literal_content) @import.module)) @import
(import_spec !name path: (interpreted_string_literal (interpreted_string_literal_content) @import.module)) @import

; ---- dynamic: targets computed at run time -----------------------------------
((call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @_m) arguments: (argument_list . (interpreted_string_literal (interpreted_string_literal_content) @name) .)) @dynamic
  (#any-of? @_m "MethodByName" "FieldByName") (#set! reason "reflect: MethodByName with a literal name"))
((call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @_m) arguments: (argument_list . [(identifier) (selector_expression) (call_expression) (binary_expression) (index_expression)] .)) @dynamic
  (#any-of? @_m "MethodByName" "FieldByName") (#set! reason "reflect: MethodByName with a computed name"))
((call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @_m)) @dynamic
  (#eq? @_m "Method") (#set! reason "reflect: Method by index"))
((call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @_m)) @dynamic
  (#any-of? @_m "Call" "CallSlice") (#set! reason "reflect: Value.Call"))
((call_expression function: (selector_expression operand: (identifier) @_p field: (field_identifier) @_f)) @dynamic
  (#eq? @_p "plugin") (#eq? @_f "Open") (#set! reason "plugin.Open: code loaded at run time"))

; ---- declared types of names (receiver typing) -------------------------------
; Only named types (T, *T, pkg.T, T[X]): a slice or map of T is not a T.
(parameter_declaration
  name: (identifier) @typed.name
  type: [
    (type_identifier) @typed.type
    (qualified_type) @typed.type
    (generic_type type: (_) @typed.type)
    (pointer_type [(type_identifier) (qualified_type)] @typed.type)
    (pointer_type (generic_type type: (_) @typed.type))
  ]) @typed
(field_declaration
  name: (field_identifier) @typed.name
  type: [
    (type_identifier) @typed.type
    (qualified_type) @typed.type
    (generic_type type: (_) @typed.type)
    (pointer_type [(type_identifier) (qualified_type)] @typed.type)
    (pointer_type (generic_type type: (_) @typed.type))
  ]) @typed.member
; The anchor is the declaration, not the spec: a package-level spec is itself a
; definition, and its type must be visible to the whole package scope.
(var_declaration
  (var_spec
    name: (identifier) @typed.name
    type: [
      (type_identifier) @typed.type
      (qualified_type) @typed.type
      (generic_type type: (_) @typed.type)
      (pointer_type [(type_identifier) (qualified_type)] @typed.type)
      (pointer_type (generic_type type: (_) @typed.type))
    ])) @typed
(var_declaration
  (var_spec_list
    (var_spec
      name: (identifier) @typed.name
      type: [
        (type_identifier) @typed.type
        (qualified_type) @typed.type
        (generic_type type: (_) @typed.type)
        (pointer_type [(type_identifier) (qualified_type)] @typed.type)
        (pointer_type (generic_type type: (_) @typed.type))
      ]))) @typed
; x := T{…}, x := &T{…}, x := new(T), var x = T{…}
(short_var_declaration
  left: (expression_list . (identifier) @typed.name)
  right: (expression_list . [
    (composite_literal type: [(type_identifier) (qualified_type)] @typed.type)
    (composite_literal type: (generic_type type: (_) @typed.type))
    (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @typed.type))
    (unary_expression operand: (composite_literal type: (generic_type type: (_) @typed.type)))
  ])) @typed
((short_var_declaration
  left: (expression_list . (identifier) @typed.name)
  right: (expression_list . (call_expression function: (identifier) @_new arguments: (argument_list . [(type_identifier) (qualified_type)] @typed.type .)))) @typed
  (#eq? @_new "new"))
(var_declaration
  (var_spec
    name: (identifier) @typed.name
    !type
    value: (expression_list . [
      (composite_literal type: [(type_identifier) (qualified_type)] @typed.type)
      (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @typed.type))
    ]))) @typed
(var_declaration
  (var_spec_list
    (var_spec
      name: (identifier) @typed.name
      !type
      value: (expression_list . [
        (composite_literal type: [(type_identifier) (qualified_type)] @typed.type)
        (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @typed.type))
      ])))) @typed
