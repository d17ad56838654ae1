"""The type stubs shipped with `acl` (acl/__init__.pyi, rt.pyi, util.pyi,
py.typed): one stub per public function, with pyACL's positional parameters
(the arity the module parses) and a docstring that opens with the call."""

import ast
import os
import unittest

import acl
from test_conventions import ACL_FUNCS, RT_FUNCS, UTIL_FUNCS

HERE = os.path.dirname(os.path.abspath(acl.__file__))


def stubs(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


class Stubs(unittest.TestCase):
    def test_py_typed_is_shipped(self):
        self.assertTrue(os.path.exists(os.path.join(HERE, "py.typed")))

    def test_every_function_has_a_stub_with_its_signature_and_a_docstring(self):
        for file, mod, arities in (("__init__.pyi", acl, ACL_FUNCS), ("rt.pyi", acl.rt, RT_FUNCS),
                                   ("util.pyi", acl.util, UTIL_FUNCS)):
            defs = stubs(file)
            public = {n for n in dir(mod) if not n.startswith("_")} - {"rt", "util"}
            self.assertEqual(set(defs), public, file)
            for name, node in defs.items():
                with self.subTest(function=f"{mod.__name__}.{name}"):
                    args = node.args
                    self.assertEqual(args.args, [])  # positional only, like METH_VARARGS
                    n = len(args.posonlyargs)
                    arity = arities[name]
                    if name == "init":
                        self.assertEqual((n, len(args.defaults)), (1, 1))
                    else:
                        self.assertEqual(n, arity)
                    doc = ast.get_docstring(node)
                    self.assertTrue(doc.startswith(f"{name}("), doc)
                    self.assertIn("->", doc.splitlines()[0])
