; Tenure tag query for Java. Capture names: grammars/README.md.

; ---- package -----------------------------------------------------------------
(package_declaration [(scoped_identifier) (identifier)] @name) @package

; ---- definitions -------------------------------------------------------------
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(annotation_type_element_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.constructor
(compact_constructor_declaration name: (identifier) @name) @def.constructor
(enum_constant name: (identifier) @name) @def.field
; A record's components are its fields (and accessors).
(record_declaration parameters: (formal_parameters (formal_parameter name: (identifier) @name) @def.field))
; `int a, b;` is one field_declaration: the first declarator takes the declaration node
; (so `exported` sees its modifiers), each later one its own declarator node.
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @def.field
(field_declaration (variable_declarator) "," (variable_declarator name: (identifier) @name) @def.field)
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @def.field
(constant_declaration (variable_declarator) "," (variable_declarator name: (identifier) @name) @def.field)

; ---- calls and instantiations ------------------------------------------------
(method_invocation object: (_) @receiver name: (identifier) @name) @ref.call
(method_invocation !object name: (identifier) @name) @ref.call
(object_creation_expression type: (type_identifier) @name) @ref.instantiate
(object_creation_expression type: (generic_type . (type_identifier) @name)) @ref.instantiate
(object_creation_expression type: (scoped_type_identifier (type_identifier) @name .)) @ref.instantiate
(object_creation_expression type: (generic_type . (scoped_type_identifier (type_identifier) @name .))) @ref.instantiate
; Method references: `Foo::new` creates, `this::handle` / `Foo::parse` names a method.
((method_reference . [(identifier) (type_identifier)] @name . "::" . "new")) @ref.instantiate
(method_reference . (_) @receiver . "::" . (identifier) @name .) @ref.reference

; ---- type and value references -----------------------------------------------
; Type names start with a capital by convention; a lowercase one is a package prefix
; (`java.io.Serializable`) or `var`, which parses as a type name but is a keyword.
((type_identifier) @ref.reference (#match? @ref.reference "^[A-Z_$]"))
(marker_annotation name: (identifier) @name) @ref.reference
(marker_annotation name: (scoped_identifier name: (identifier) @name)) @ref.reference
(annotation name: (identifier) @name) @ref.reference
(annotation name: (scoped_identifier name: (identifier) @name)) @ref.reference
(argument_list (identifier) @name) @ref.reference

; ---- data: reads and writes of fields, constants, enum constants ------------
; A field read: `this.max`, `RetryPolicy.MAX_ATTEMPTS`, `Status.ACTIVE`.
(field_access object: (_) @receiver field: (identifier) @name) @ref.read
; The object of a member use, when it is a bare name: a read of the field or variable it
; names; a type or package it names is no edge of its own (the member use is).
((field_access object: (identifier) @name) @ref.read (#set! nameIs "receiver"))
((method_invocation object: (identifier) @name) @ref.read (#set! nameIs "receiver"))
; Bare names in expressions: fields of the enclosing classes, static imports (locals dropped).
; Only where an expression can stand (the parents the grammar lets hold one): a catch-all
; `((identifier) @ref.read)` also matched every declared, bound, called and member name (half of all
; matches on JabRef, each a node object to build, nearly all dropped), made reads of what lambdas,
; catch clauses, enhanced for loops, resources and `instanceof` patterns bind and of module and package
; names, and outranked the references above for annotations (`@Test` read as data).
(annotation_argument_list (identifier) @ref.read)
(annotation_type_element_declaration value: (identifier) @ref.read)
(argument_list (identifier) @ref.read)
(array_access (identifier) @ref.read)
(array_initializer (identifier) @ref.read)
(assert_statement (identifier) @ref.read)
(assignment_expression (identifier) @ref.read)
(binary_expression (identifier) @ref.read)
(cast_expression (identifier) @ref.read)
(dimensions_expr (identifier) @ref.read)
(element_value_array_initializer (identifier) @ref.read)
(element_value_pair value: (identifier) @ref.read)
(enhanced_for_statement value: (identifier) @ref.read)
(explicit_constructor_invocation (identifier) @ref.read)
(expression_statement (identifier) @ref.read)
(for_statement (identifier) @ref.read)
(guard (identifier) @ref.read)
(instanceof_expression left: (identifier) @ref.read)
(lambda_expression body: (identifier) @ref.read)
(method_reference (identifier) @ref.read)
(object_creation_expression (identifier) @ref.read)
(parenthesized_expression (identifier) @ref.read)
(record_pattern (identifier) @ref.read)
(resource value: (identifier) @ref.read)
(resource !name (identifier) @ref.read)
(return_statement (identifier) @ref.read)
(string_interpolation (identifier) @ref.read)
(switch_label (identifier) @ref.read)
(template_expression (identifier) @ref.read)
(ternary_expression (identifier) @ref.read)
(throw_statement (identifier) @ref.read)
(unary_expression (identifier) @ref.read)
(update_expression (identifier) @ref.read)
(variable_declarator value: (identifier) @ref.read)
(yield_statement (identifier) @ref.read)
(assignment_expression left: (field_access object: (_) @receiver field: (identifier) @name)) @ref.write
(assignment_expression left: (identifier) @name) @ref.write
(update_expression (field_access object: (_) @receiver field: (identifier) @name)) @ref.write
(update_expression (identifier) @name) @ref.write
; `super(...)` / `this(...)` run a constructor of the base class / of this class.
((explicit_constructor_invocation constructor: (super) @name) @ref.call (#set! name "constructor") (#set! receiver "super"))
((explicit_constructor_invocation constructor: (this) @name) @ref.call (#set! name "constructor") (#set! receiver "this"))

; ---- configuration keys and environment variables read by name ----------------
; `@Value("${settlement.retry.max:3}")` reads each key its placeholders name.
((annotation name: (identifier) @_a arguments: (annotation_argument_list (string_literal (string_fragment) @name))) @ref.read (#eq? @_a "Value") (#set! nameIs "config-key"))
((annotation name: (identifier) @_a arguments: (annotation_argument_list (element_value_pair key: (identifier) @_k value: (string_literal (string_fragment) @name)))) @ref.read
  (#eq? @_a "Value") (#eq? @_k "value") (#set! nameIs "config-key"))
; `@ConfigurationProperties(prefix = "settlement.retry")` binds every key under the prefix.
((annotation name: (identifier) @_a arguments: (annotation_argument_list (string_literal (string_fragment) @name))) @ref.read (#eq? @_a "ConfigurationProperties") (#set! nameIs "config-prefix"))
((annotation name: (identifier) @_a arguments: (annotation_argument_list (element_value_pair key: (identifier) @_k value: (string_literal (string_fragment) @name)))) @ref.read
  (#eq? @_a "ConfigurationProperties") (#any-of? @_k "prefix" "value") (#set! nameIs "config-prefix"))
((method_invocation object: (_) @receiver name: (identifier) @_m arguments: (argument_list . (string_literal (string_fragment) @name))) @ref.read
  (#any-of? @_m "getProperty" "getRequiredProperty" "containsProperty") (#set! nameIs "config-key"))
((method_invocation object: (identifier) @receiver name: (identifier) @_m arguments: (argument_list . (string_literal (string_fragment) @name))) @ref.read
  (#eq? @receiver "System") (#eq? @_m "getenv") (#set! nameIs "env-var"))
((method_invocation object: (_) @receiver name: (identifier) @_m arguments: (argument_list . [(identifier) (field_access) (method_invocation) (binary_expression)])) @dynamic
  (#any-of? @_m "getProperty" "getRequiredProperty") (#set! nameIs "config-key"))
((method_invocation object: (identifier) @receiver name: (identifier) @_m arguments: (argument_list . [(identifier) (field_access) (method_invocation) (binary_expression)])) @dynamic
  (#eq? @receiver "System") (#eq? @_m "getenv") (#set! nameIs "env-var"))

; ---- local bindings: a bare name bound here means the local -----------------
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local))
(formal_parameter name: (identifier) @local)
(spread_parameter (variable_declarator name: (identifier) @local))
(catch_formal_parameter name: (identifier) @local)
(enhanced_for_statement name: (identifier) @local)
(lambda_expression parameters: (identifier) @local)
(inferred_parameters (identifier) @local)
(resource name: (identifier) @local)
(instanceof_expression name: (identifier) @local)
; A pattern's variable: `case Circle c ->`, `instanceof Point(int x, int y)`.
(type_pattern (identifier) @local)
(record_pattern_component (identifier) @local)
(package_declaration) @noread
(import_declaration) @noread
(labeled_statement (identifier) @noread)
(break_statement (identifier) @noread)
(continue_statement (identifier) @noread)
(element_value_pair key: (identifier) @noread)

; ---- inheritance as written --------------------------------------------------
(superclass (type_identifier) @name) @ref.extends
(superclass (generic_type . (type_identifier) @name)) @ref.extends
(superclass (scoped_type_identifier (type_identifier) @name .)) @ref.extends
(superclass (generic_type . (scoped_type_identifier (type_identifier) @name .))) @ref.extends
(super_interfaces (type_list (type_identifier) @name)) @ref.implements
(super_interfaces (type_list (generic_type . (type_identifier) @name))) @ref.implements
(super_interfaces (type_list (scoped_type_identifier (type_identifier) @name .))) @ref.implements
(super_interfaces (type_list (generic_type . (scoped_type_identifier (type_identifier) @name .)))) @ref.implements
(extends_interfaces (type_list (type_identifier) @name)) @ref.extends
(extends_interfaces (type_list (generic_type . (type_identifier) @name))) @ref.extends
(extends_interfaces (type_list (scoped_type_identifier (type_identifier) @name .))) @ref.extends
(extends_interfaces (type_list (generic_type . (scoped_type_identifier (type_identifier) @name .)))) @ref.extends

; ---- imports -----------------------------------------------------------------
; `import a.b.C;` → module a.b, name C (the module is the package, as `package` declares it).
; `import static a.b.C.m;` → module a.b.C, name m. `import a.b.*;` → module a.b, wildcard.
(import_declaration (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) .) @import
(import_declaration (_) @import.module (asterisk) @import.wildcard) @import

; ---- dynamic: targets computed at run time -----------------------------------
; Within a group the literal-name and computed-name patterns exclude each other: the
; order of matches on one node is not the order of patterns.
((method_invocation object: (_) @receiver name: (identifier) @_m arguments: (argument_list . (string_literal (string_fragment) @name))) @dynamic
  (#any-of? @_m "getMethod" "getDeclaredMethod") (#set! reason "reflection: getMethod with a literal name"))
((method_invocation object: (_) @receiver name: (identifier) @_m arguments: (argument_list . [(identifier) (field_access) (method_invocation) (binary_expression) (ternary_expression) (array_access) (parenthesized_expression) (cast_expression)])) @dynamic
  (#any-of? @_m "getMethod" "getDeclaredMethod") (#set! reason "reflection: getMethod with a computed name"))
((method_invocation object: (_) @receiver name: (identifier) @_m arguments: (argument_list . (string_literal (string_fragment) @name))) @dynamic
  (#any-of? @_m "getField" "getDeclaredField") (#set! reason "reflection: getField with a literal name"))
((method_invocation object: (_) @receiver name: (identifier) @_m arguments: (argument_list . [(identifier) (field_access) (method_invocation) (binary_expression) (ternary_expression) (array_access) (parenthesized_expression) (cast_expression)])) @dynamic
  (#any-of? @_m "getField" "getDeclaredField") (#set! reason "reflection: getField with a computed name"))
((method_invocation object: (identifier) @_c name: (identifier) @_m arguments: (argument_list . (string_literal (string_fragment) @name))) @dynamic
  (#eq? @_c "Class") (#eq? @_m "forName") (#set! reason "reflection: Class.forName with a literal name"))
((method_invocation object: (identifier) @_c name: (identifier) @_m arguments: (argument_list . [(identifier) (field_access) (method_invocation) (binary_expression) (ternary_expression) (array_access) (parenthesized_expression) (cast_expression)])) @dynamic
  (#eq? @_c "Class") (#eq? @_m "forName") (#set! reason "reflection: Class.forName with a computed name"))
((method_invocation object: (_) @receiver name: (identifier) @_m arguments: (argument_list (_) . (string_literal (string_fragment) @name))) @dynamic
  (#any-of? @_m "findVirtual" "findStatic" "findSpecial" "findGetter" "findSetter" "findStaticGetter" "findStaticSetter" "findVarHandle" "findStaticVarHandle")
  (#set! reason "method handle lookup with a literal name"))
((method_invocation object: (_) @receiver name: (identifier) @_m arguments: (argument_list (_) . [(identifier) (field_access) (method_invocation) (binary_expression) (ternary_expression) (array_access) (parenthesized_expression) (cast_expression)])) @dynamic
  (#any-of? @_m "findVirtual" "findStatic" "findSpecial" "findGetter" "findSetter" "findStaticGetter" "findStaticSetter" "findVarHandle" "findStaticVarHandle")
  (#set! reason "method handle lookup with a computed name"))
((method_invocation object: (_) @receiver name: (identifier) @_m) @dynamic
  (#any-of? @_m "findConstructor" "unreflect" "unreflectConstructor" "unreflectSpecial") (#set! reason "method handle from a reflected member"))
((method_invocation object: (_) @receiver name: (identifier) @_m) @dynamic
  (#any-of? @_m "invoke" "invokeExact" "invokeWithArguments") (#set! reason "reflective invocation: Method.invoke / MethodHandle.invoke"))
((method_invocation object: (_) @receiver name: (identifier) @_m) @dynamic
  (#eq? @_m "newInstance") (#set! reason "reflective instantiation: newInstance"))
((method_invocation object: (identifier) @_p name: (identifier) @_m) @dynamic
  (#eq? @_p "Proxy") (#eq? @_m "newProxyInstance") (#set! reason "dynamic proxy"))

; ---- declared types of names (receiver typing) -------------------------------
; Scopes are whole definitions and the first declaration of a name wins, so names
; that are routinely re-declared in sibling blocks (catch parameters `e`) are left out.
(field_declaration type: (_) @typed.type declarator: (variable_declarator name: (identifier) @typed.name)) @typed.member
(record_declaration parameters: (formal_parameters (formal_parameter type: (_) @typed.type name: (identifier) @typed.name) @typed.member))
(formal_parameter type: (_) @typed.type name: (identifier) @typed.name) @typed
(spread_parameter (_) @typed.type . (variable_declarator name: (identifier) @typed.name)) @typed
((local_variable_declaration type: (_) @typed.type declarator: (variable_declarator name: (identifier) @typed.name)) @typed (#not-eq? @typed.type "var"))
((local_variable_declaration type: (type_identifier) @_var declarator: (variable_declarator name: (identifier) @typed.name value: (object_creation_expression type: (_) @typed.type))) @typed (#eq? @_var "var"))
((resource type: (_) @typed.type name: (identifier) @typed.name) @typed (#not-eq? @typed.type "var"))
((enhanced_for_statement type: (_) @typed.type name: (identifier) @typed.name) @typed (#not-eq? @typed.type "var"))
(assignment_expression left: (field_access object: (this) field: (identifier) @typed.name) right: (object_creation_expression type: (_) @typed.type)) @typed.member
