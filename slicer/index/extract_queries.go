package index

// Tree-sitter queries per language, in the spirit of the tags.scm files
// that grammars ship, reduced to what the index keeps.
//
// Definitions queries capture the whole definition as @definition.KIND and
// its name as @name; an optional @scope names the enclosing type when the
// syntax does not nest (Go methods, C++ out-of-line members, Lua M.f). When
// two patterns match the same node, the earlier pattern wins, so specific
// patterns come first. References queries capture identifiers as @ref; a
// definition's own name is never a reference.
//
// Changing any query changes the extraction version (see cache.go), which
// invalidates cached results.

const goDefs = `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [
    (type_identifier) @scope
    (pointer_type (type_identifier) @scope)
    (generic_type type: (type_identifier) @scope)
    (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.const))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.var))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.var)))
(method_elem name: (field_identifier) @name) @definition.method
(field_declaration_list (field_declaration name: (field_identifier) @name) @definition.field)
`

const goRefs = `
[(identifier) (type_identifier) (field_identifier) (package_identifier)] @ref
`

const pythonDefs = `
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (expression_statement (assignment left: (identifier) @name) @definition.var))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
`

const pythonRefs = `(identifier) @ref`

// jsCommonDefs holds the patterns JavaScript and TypeScript share.
const jsCommonDefs = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.var))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.var))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)))
(assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @definition.function
`

const jsDefs = jsCommonDefs + `
(class_declaration name: (identifier) @name) @definition.class
(field_definition property: (property_identifier) @name) @definition.field
`

const jsRefs = `[(identifier) (property_identifier) (shorthand_property_identifier)] @ref`

const tsDefs = jsCommonDefs + `
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.namespace
(module name: [(identifier) (nested_identifier)] @name) @definition.namespace
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
(function_signature name: (identifier) @name) @definition.function
(public_field_definition name: (property_identifier) @name) @definition.field
(interface_body (property_signature name: (property_identifier) @name) @definition.field)
`

const tsxExtraDefs = ``

const tsRefs = `[(identifier) (property_identifier) (shorthand_property_identifier) (type_identifier)] @ref`

const javaDefs = `
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
`

const javaRefs = `[(identifier) (type_identifier)] @ref`

const rustDefs = `
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(impl_item type: (type_identifier) @name) @definition.impl
(impl_item type: (generic_type type: (type_identifier) @name)) @definition.impl
(impl_item type: (scoped_type_identifier name: (type_identifier) @name)) @definition.impl
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.const
(static_item name: (identifier) @name) @definition.var
(macro_definition name: (identifier) @name) @definition.macro
(mod_item name: (identifier) @name) @definition.namespace
(field_declaration_list (field_declaration name: (field_identifier) @name) @definition.field)
`

const rustRefs = `[(identifier) (type_identifier) (field_identifier)] @ref`

// cFunctionDefs matches C function definitions whose declarator may be
// wrapped in pointers (char **f(void)).
const cFunctionDefs = `
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
`

const cDefs = cFunctionDefs + `
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.var)
(translation_unit (declaration declarator: (identifier) @name) @definition.var)
`

const cRefs = `[(identifier) (type_identifier) (field_identifier)] @ref`

const cppDefs = `
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name)))) @definition.method
(function_definition declarator: (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name)))) @definition.method
(function_definition declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))) @definition.function
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(alias_declaration name: (type_identifier) @name) @definition.type
(namespace_definition name: (namespace_identifier) @name) @definition.namespace
` + cFunctionDefs

const cppRefs = `[(identifier) (type_identifier) (field_identifier) (namespace_identifier)] @ref`

const csharpDefs = `
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(namespace_declaration name: [(identifier) (qualified_name)] @name) @definition.namespace
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(property_declaration name: (identifier) @name) @definition.property
(delegate_declaration name: (identifier) @name) @definition.type
(field_declaration (variable_declaration (variable_declarator (identifier) @name))) @definition.field
`

const csharpRefs = `(identifier) @ref`

const rubyDefs = `
(class name: [(constant) (scope_resolution)] @name) @definition.class
(module name: [(constant) (scope_resolution)] @name) @definition.module
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.const
`

const rubyRefs = `[(identifier) (constant)] @ref`

const phpDefs = `
(namespace_definition name: (namespace_name) @name) @definition.namespace
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(class_declaration name: (name) @name) @definition.class
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function
(const_element (name) @name) @definition.const
(property_element (variable_name (name) @name)) @definition.field
`

const phpRefs = `(name) @ref`

const kotlinDefs = `
(class_declaration "interface" (type_identifier) @name) @definition.interface
(class_declaration (type_identifier) @name (enum_class_body)) @definition.enum
(class_declaration (type_identifier) @name) @definition.class
(object_declaration (type_identifier) @name) @definition.object
(function_declaration (simple_identifier) @name) @definition.function
(type_alias (type_identifier) @name) @definition.type
(source_file (property_declaration (variable_declaration (simple_identifier) @name)) @definition.var)
(class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition.field)
`

const kotlinRefs = `[(simple_identifier) (type_identifier)] @ref`

const scalaDefs = `
(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.object
(trait_definition name: (identifier) @name) @definition.trait
(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function
(type_definition name: (type_identifier) @name) @definition.type
(compilation_unit (val_definition pattern: (identifier) @name) @definition.const)
(compilation_unit (var_definition pattern: (identifier) @name) @definition.var)
(template_body (val_definition pattern: (identifier) @name) @definition.field)
(template_body (var_definition pattern: (identifier) @name) @definition.field)
`

const scalaRefs = `[(identifier) (type_identifier)] @ref`

const swiftDefs = `
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @name)) @definition.extension
(class_declaration name: (type_identifier) @name) @definition.class
(protocol_declaration name: (type_identifier) @name) @definition.protocol
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration "init" @name) @definition.constructor
(typealias_declaration name: (type_identifier) @name) @definition.type
(source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.var)
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field)
`

const swiftRefs = `[(simple_identifier) (type_identifier)] @ref`

const bashDefs = `
(function_definition name: (word) @name) @definition.function
(program (variable_assignment name: (variable_name) @name) @definition.var)
`

const bashRefs = `
(command_name (word) @ref)
(variable_name) @ref
`

const luaDefs = `
(function_statement name: (function_name (identifier) @scope . [(table_dot) (table_colon)] . (identifier) @name)) @definition.function
(function_statement name: (identifier) @name) @definition.function
(function_statement name: (function_name . (identifier) @name .)) @definition.function
(program (variable_declaration name: (variable_declarator (identifier) @name)) @definition.var)
`

const luaRefs = `(identifier) @ref`
