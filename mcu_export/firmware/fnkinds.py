"""Which functions an indirect call can reach: the "kind" of a function pointer is its prototype.

C calls through a pointer only with a compatible function type, so an indirect call whose pointer has
prototype P can reach only the address-taken functions of prototype P. The prototypes come from the ELF's DWARF
(`-g`): each function's (return type, parameter types), typedefs resolved, qualifiers dropped (so two prototypes
that differ only in `const` count as one kind: more targets, never fewer). A call site's prototype comes from the
expression GCC names in its `.ci` file (`file:line:col` of the callee expression): its last name outside
subscripts (`k->fn`, `table[i]`, `(*ops->execute)`) is a struct member, variable or parameter of the caller's
compilation unit, whose DWARF type is a pointer to a function type. Where any step finds nothing (no DWARF, a
name with no function-pointer type, an unreadable source line), the call may reach every address-taken function.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Iterable, Optional, Set

UNKNOWN = "?"  # a prototype the DWARF does not give: matches every call
_QUALIFIERS = {"DW_TAG_const_type", "DW_TAG_volatile_type", "DW_TAG_restrict_type", "DW_TAG_atomic_type"}
_AGGREGATES = {"DW_TAG_structure_type": "struct", "DW_TAG_union_type": "union", "DW_TAG_enumeration_type": "enum"}


def _target(die):
    return die.get_DIE_from_attribute("DW_AT_type") if "DW_AT_type" in die.attributes else None


def _name(die) -> Optional[str]:
    a = die.attributes.get("DW_AT_name")
    return a.value.decode() if a is not None else None


def type_text(die, depth: int = 0) -> str:
    """A type as text that two compilation units agree on (structs by name: their members do not matter)."""
    if die is None:
        return "void"
    if depth > 12:
        return UNKNOWN
    tag = die.tag
    if tag in _QUALIFIERS:
        return type_text(_target(die), depth + 1)
    if tag == "DW_TAG_typedef":
        inner = _target(die)
        if inner is not None and inner.tag in _AGGREGATES and _name(inner) is None:
            return _name(die) or UNKNOWN  # typedef struct { ... } name: the typedef is its only name
        return type_text(inner, depth + 1)
    if tag == "DW_TAG_pointer_type":
        return type_text(_target(die), depth + 1) + "*"
    if tag == "DW_TAG_array_type":
        return type_text(_target(die), depth + 1) + "[]"
    if tag == "DW_TAG_base_type":
        return _name(die) or UNKNOWN
    if tag in _AGGREGATES:
        return f"{_AGGREGATES[tag]} {_name(die) or UNKNOWN}"
    if tag == "DW_TAG_subroutine_type":
        return "fn" + prototype(die, depth + 1)
    return UNKNOWN


def prototype(die, depth: int = 0) -> str:
    """ "(param, ...)->return" of a subprogram or subroutine type; UNKNOWN for an unprototyped (K&R) one."""
    for ref in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if ref in die.attributes:  # an out-of-line or concrete instance: the declaration has the types
            return prototype(die.get_DIE_from_attribute(ref), depth)
    if die.tag == "DW_TAG_subprogram" and not die.attributes.get("DW_AT_prototyped"):
        return UNKNOWN
    params = []
    for child in die.iter_children():
        if child.tag == "DW_TAG_formal_parameter":
            params.append(type_text(_target(child), depth + 1))
        elif child.tag == "DW_TAG_unspecified_parameters":
            params.append("...")
    return f"({','.join(params)})->{type_text(_target(die), depth + 1)}"


def _pointee_prototype(die) -> Optional[str]:
    """The prototype a function-pointer-typed name (or an array of them) calls; None for other types."""
    t = _target(die)
    for _ in range(12):
        if t is None:
            return None
        if t.tag in _QUALIFIERS or t.tag in ("DW_TAG_typedef", "DW_TAG_array_type"):
            t = _target(t)
        elif t.tag == "DW_TAG_pointer_type":
            inner = _target(t)
            while inner is not None and inner.tag in _QUALIFIERS | {"DW_TAG_typedef"}:
                inner = _target(inner)
            return prototype(inner) if inner is not None and inner.tag == "DW_TAG_subroutine_type" else None
        else:
            return None
    return None


class Prototypes:
    """Function prototypes by address, and per compilation unit the function-pointer names it declares."""

    def __init__(self, elf_path: Path, addresses: Iterable[int] = (), units: Iterable[str] = ()):
        """Reads only the compilation units that hold one of `addresses` (the address-taken functions) or are
        one of `units` (those with indirect calls): DWARF is the slow part of the analysis."""
        from elftools.elf.elffile import ELFFile

        self.by_address: Dict[int, str] = {}
        self.pointer_names: Dict[str, Dict[str, Set[str]]] = {}  # CU source path -> name -> prototypes
        self.comp_dirs: Dict[str, str] = {}  # CU source path -> the directory it was compiled in
        with open(elf_path, "rb") as f:
            elf = ELFFile(f)
            if not elf.has_dwarf_info():
                return
            dwarf = elf.get_dwarf_info()
            aranges = dwarf.get_aranges()
            wanted = {_unit_at(aranges, a) for a in addresses} if aranges is not None else None
            names = {Path(u).name for u in units}
            for cu in dwarf.iter_CUs():
                top_name = _name(cu.get_top_DIE()) or ""
                if wanted is None or cu.cu_offset in wanted or Path(top_name).name in names:
                    self._read_cu(cu)

    def _read_cu(self, cu) -> None:
        top = cu.get_top_DIE()
        names = self.pointer_names.setdefault(_name(top) or "", {})
        comp_dir = top.attributes.get("DW_AT_comp_dir")
        self.comp_dirs[_name(top) or ""] = comp_dir.value.decode() if comp_dir is not None else "."
        for die in cu.iter_DIEs():
            if die.tag == "DW_TAG_subprogram" and "DW_AT_low_pc" in die.attributes:
                self.by_address[die.attributes["DW_AT_low_pc"].value & ~1] = prototype(die)
            elif die.tag in ("DW_TAG_member", "DW_TAG_variable", "DW_TAG_formal_parameter"):
                name = _name(die)
                proto = _pointee_prototype(die) if name else None
                if name is not None and proto is not None:
                    names.setdefault(name, set()).add(proto)

    def of_site(self, unit: str, site: str) -> Optional[Set[str]]:
        """Prototypes the indirect call at `site` ("file:line:col") in compilation unit `unit` may have;
        None when they cannot be told (then it may reach any address-taken function)."""
        if unit not in self.pointer_names:
            unit = next((u for u in self.pointer_names if Path(u).name == Path(unit).name), unit)
        names = self.pointer_names.get(unit)
        name = callee_name(site, Path(self.comp_dirs.get(unit, ".")))
        if names is None or name is None or name not in names:
            return None
        return names[name]


def _unit_at(aranges, address: int) -> Optional[int]:
    """The offset of the unit whose code holds `address`; None for code no unit describes (newlib, libgcc)."""
    try:
        return aranges.cu_offset_at_addr(address)
    except (ValueError, IndexError, KeyError):
        return None


def callee_name(site: str, comp_dir: Path = Path(".")) -> Optional[str]:
    """The last name of the callee expression that starts at `site` (outside its subscripts); a relative file
    is where the compiler ran (the unit's DW_AT_comp_dir)."""
    m = re.match(r"^(.*):(\d+):(\d+)$", site)
    if not m:
        return None
    try:
        lines = (comp_dir / m.group(1)).read_text(errors="replace").splitlines()
    except OSError:
        return None
    line_no, col = int(m.group(2)), int(m.group(3))
    if not 0 < line_no <= len(lines):
        return None
    text = " ".join(lines[line_no - 1 : line_no + 3])[col - 1 :]
    expr = _callee_expression(text)
    if expr is None:
        return None
    while re.search(r"\[[^\[\]]*\]", expr):
        expr = re.sub(r"\[[^\[\]]*\]", "", expr)
    found = re.findall(r"[A-Za-z_]\w*", expr)
    return found[-1] if found else None


def _callee_expression(text: str) -> Optional[str]:
    """`o->fn` of `o->fn(k)`, `(*o->fn)` of `(*o->fn)(k)`: up to the call's own `(` at bracket depth 0."""
    depth = 0
    for i, c in enumerate(text):
        if c in "([":
            if c == "(" and depth == 0 and i > 0:
                return text[:i]
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth < 0:
                return None
        elif c == ";" and depth == 0:
            return None
    return None


def matches(kinds: Optional[Set[str]], proto: Optional[str]) -> bool:
    return kinds is None or proto is None or proto == UNKNOWN or proto in kinds


def reachable(kinds: Optional[Set[str]], taken: Iterable[int], protos: Dict[int, str]) -> Set[int]:
    return {a for a in taken if matches(kinds, protos.get(a))}
