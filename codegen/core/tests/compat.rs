//! Wire-change detection (`wirelens_core::compat`) on a table of edit kinds × both dialects
//! (ffire in both field orders; SDP, whose order is fixed, under both settings too):
//! each case asserts the exact breaks reported — kind, place, the text of the source
//! range in both versions, and the messages affected — or that none is.

use wirelens_core::compat::{compare, compare_with, field_offsets, Break, BreakKind, Fields, Report, Status};
use wirelens_core::{analyze, Analysis, Dialect, FieldOrder, OrderChoice};

const SDP: &str = "\
/// A point.
struct Point {
    x: u32,
    y: u32,
}

struct Line {
    a: Point,
    b: Point,
    label: str,
}
";

const FFI: &str = "\
package p

// A sample.
type Sample struct {
\tName  string
\tId    int64
\tCount int32
\tFlags int32
}

type Batch struct {
\tItems []Sample
\tNote  *string
}
";

fn analysis(dialect: Dialect, text: &str, order: FieldOrder) -> Analysis {
    let a = analyze(
        dialect,
        text,
        None,
        OrderChoice {
            order: Some(order),
            overrides_directive: true,
        },
    );
    assert!(!a.has_errors(), "{text}\n{:?}", a.diagnostics);
    a
}

/// `kind Type.field old=`…` new=`…` affects=[…]`, the ranges shown as the text they cover.
fn describe(b: &Break, old: &str, new: &str) -> String {
    let text = |t: &str, r: &Option<std::ops::Range<usize>>| {
        r.as_ref().map_or("-".to_string(), |r| format!("`{}`", &t[r.clone()]))
    };
    format!(
        "{} {}{} old={} new={} affects={}",
        b.kind.code(),
        b.type_name,
        b.field.as_ref().map(|f| format!(".{f}")).unwrap_or_default(),
        text(old, &b.old_range),
        text(new, &b.new_range),
        b.affects.join(",")
    )
}

fn run(dialect: Dialect, order: FieldOrder, old: &str, new: &str) -> (Report, Vec<String>) {
    let (a, b) = (analysis(dialect, old, order), analysis(dialect, new, order));
    let report = compare(&a, &b);
    same_without_fields(&a, &b, &report);
    let lines = report.breaks.iter().map(|x| describe(x, old, new)).collect();
    (report, lines)
}

/// What the editor computes on each publish (no field places, types it finds unchanged
/// skipped without matching their fields) is `wirelens diff`'s report minus the field
/// places, and a hover's one-type `field_offsets` are that type's places.
fn same_without_fields(a: &Analysis, b: &Analysis, full: &Report) {
    let mut expected = full.clone();
    for t in &mut expected.types {
        t.fields.clear();
    }
    assert_eq!(compare_with(a, b, Fields::None), expected);
    for t in &full.types {
        if t.id.old.is_some() && t.id.new.is_some() {
            assert_eq!(field_offsets(a, b, &t.name), t.fields, "{}", t.name);
        }
    }
}

/// Applies each `(from, to)` replacement once (each `from` must occur).
fn edit(base: &str, edits: &[(&str, &str)]) -> String {
    let mut s = base.to_string();
    for (from, to) in edits {
        assert!(s.contains(from), "`{from}` not in\n{s}");
        s = s.replacen(from, to, 1);
    }
    s
}

struct Case {
    name: &'static str,
    edits: &'static [(&'static str, &'static str)],
    expect: &'static [&'static str],
}

fn check_table(dialect: Dialect, base: &str, order: FieldOrder, cases: &[Case]) {
    let mut failures = Vec::new();
    for case in cases {
        let new = edit(base, case.edits);
        let (report, got) = run(dialect, order, base, &new);
        if got != case.expect {
            failures.push(format!(
                "{} ({}):\n  expected {:#?}\n  got {:#?}",
                case.name,
                order.as_str(),
                case.expect,
                got
            ));
        }
        assert_eq!(report.is_compatible(), case.expect.is_empty(), "{}", case.name);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Edits that leave the layout alone, in either dialect and order.
fn compatible_edits(dialect: Dialect) -> Vec<Case> {
    match dialect {
        Dialect::Sdp => vec![
            Case {
                name: "comment added",
                edits: &[("    y: u32,", "    // the vertical one\n    y: u32,")],
                expect: &[],
            },
            Case {
                name: "doc comment changed",
                edits: &[("/// A point.", "/// A point on the plane.\n/// In pixels.")],
                expect: &[],
            },
            Case {
                name: "formatting and whitespace",
                edits: &[(
                    "struct Point {\n    x: u32,\n    y: u32,\n}",
                    "struct Point { x:u32,\n\n\t y :  u32 }",
                )],
                expect: &[],
            },
        ],
        Dialect::Ffi => vec![
            Case {
                name: "comment added",
                edits: &[("\tCount int32", "\t// how many\n\tCount int32 // at least one")],
                expect: &[],
            },
            Case {
                name: "doc comment changed",
                edits: &[("// A sample.", "// A sample,\n// measured.")],
                expect: &[],
            },
            Case {
                name: "formatting and whitespace",
                edits: &[(
                    "\tItems []Sample\n\tNote  *string",
                    "   Items    []Sample\n\n\n\tNote *string   ",
                )],
                expect: &[],
            },
        ],
    }
}

#[test]
fn sdp_edit_kinds() {
    let cases = [
        Case {
            name: "field added at the end",
            edits: &[("    y: u32,\n", "    y: u32,\n    z: u32,\n")],
            expect: &["field-added Point.z old=- new=`z: u32` affects=Point,Line"],
        },
        Case {
            name: "field removed",
            edits: &[("    x: u32,\n", "")],
            expect: &["field-removed Point.x old=`x: u32` new=- affects=Point,Line"],
        },
        Case {
            name: "fields reordered",
            edits: &[("    x: u32,\n    y: u32,", "    y: u32,\n    x: u32,")],
            expect: &[
                "field-reordered Point.y old=`y: u32` new=`y: u32` affects=Point,Line",
                "field-reordered Point.x old=`x: u32` new=`x: u32` affects=Point,Line",
            ],
        },
        Case {
            name: "size and type changed",
            edits: &[("    x: u32,", "    x: u64,")],
            expect: &["type-changed Point.x old=`u32` new=`u64` affects=Point,Line"],
        },
        Case {
            name: "type changed, same size",
            edits: &[("    x: u32,", "    x: i32,")],
            expect: &["type-changed Point.x old=`u32` new=`i32` affects=Point,Line"],
        },
        Case {
            name: "optional-ness changed",
            edits: &[("    b: Point,", "    b: Option<Point>,")],
            expect: &["optional-changed Line.b old=`Point` new=`Option<Point>` affects=Line"],
        },
        Case {
            name: "message ids renumbered by a struct inserted at the top",
            edits: &[("/// A point.", "struct Header {\n    v: u8,\n}\n\n/// A point.")],
            expect: &[
                "message-id-changed Point old=`Point` new=`Point` affects=Point",
                "message-id-changed Line old=`Line` new=`Line` affects=Line",
            ],
        },
        Case {
            name: "struct added at the end",
            edits: &[(
                "    label: str,\n}\n",
                "    label: str,\n}\n\nstruct Extra {\n    v: u8,\n}\n",
            )],
            expect: &[],
        },
        Case {
            name: "struct removed (the last one)",
            edits: &[(
                "\nstruct Line {\n    a: Point,\n    b: Point,\n    label: str,\n}\n",
                "",
            )],
            expect: &["type-removed Line old=`Line` new=- affects=Line"],
        },
        Case {
            name: "field renamed in place",
            edits: &[("    x: u32,", "    left: u32,")],
            expect: &[],
        },
        Case {
            name: "Box<T> around a struct",
            edits: &[("    a: Point,", "    a: Box<Point>,")],
            expect: &[],
        },
    ];
    for order in [FieldOrder::Canonical, FieldOrder::Declaration] {
        check_table(Dialect::Sdp, SDP, order, &compatible_edits(Dialect::Sdp));
        check_table(Dialect::Sdp, SDP, order, &cases);
    }
}

#[test]
fn ffi_edit_kinds_canonical() {
    // Canonical wire order: Sample = Id, Count, Flags, Name; Batch = Items, Note.
    let cases = [
        Case {
            name: "written order changed: the wire order is sorted anyway",
            edits: &[("\tName  string\n\tId    int64\n", "\tId    int64\n\tName  string\n")],
            expect: &[],
        },
        Case {
            name: "rename that keeps the wire position",
            edits: &[("\tId    int64", "\tKey   int64")],
            expect: &[],
        },
        Case {
            name: "rename that moves the field (sorted by name within its size class)",
            edits: &[("\tCount int32", "\tTotal int32")],
            expect: &[
                "rename-moved Sample.Total old=`Count int32` new=`Total int32` affects=Batch",
                "field-reordered Sample.Flags old=`Flags int32` new=`Flags int32` affects=Batch",
            ],
        },
        Case {
            name: "field added into the middle of the wire order",
            edits: &[("\tFlags int32\n", "\tFlags int32\n\tOk    bool\n")],
            expect: &["field-added Sample.Ok old=- new=`Ok    bool` affects=Batch"],
        },
        Case {
            name: "field removed",
            edits: &[("\tId    int64\n", "")],
            expect: &["field-removed Sample.Id old=`Id    int64` new=- affects=Batch"],
        },
        Case {
            name: "size changed within the same wire position",
            edits: &[("\tFlags int32", "\tFlags int16")],
            expect: &["type-changed Sample.Flags old=`int32` new=`int16` affects=Batch"],
        },
        Case {
            name: "optional-ness changed",
            edits: &[("\tNote  *string", "\tNote  string")],
            expect: &["optional-changed Batch.Note old=`*string` new=`string` affects=Batch"],
        },
        Case {
            name: "root set changed: Batch is referenced now",
            edits: &[(
                "\tNote  *string\n}\n",
                "\tNote  *string\n}\n\ntype Envelope struct {\n\tB Batch\n}\n",
            )],
            expect: &["root-changed Batch old=`Batch` new=`Batch` affects=Batch"],
        },
    ];
    check_table(
        Dialect::Ffi,
        FFI,
        FieldOrder::Canonical,
        &compatible_edits(Dialect::Ffi),
    );
    check_table(Dialect::Ffi, FFI, FieldOrder::Canonical, &cases);
}

#[test]
fn ffi_edit_kinds_declaration() {
    let cases = [
        Case {
            name: "written order changed",
            edits: &[("\tName  string\n\tId    int64\n", "\tId    int64\n\tName  string\n")],
            expect: &[
                "field-reordered Sample.Id old=`Id    int64` new=`Id    int64` affects=Batch",
                "field-reordered Sample.Name old=`Name  string` new=`Name  string` affects=Batch",
            ],
        },
        Case {
            name: "rename keeps the position",
            edits: &[("\tCount int32", "\tTotal int32")],
            expect: &[],
        },
        Case {
            name: "field added at the end",
            edits: &[("\tFlags int32\n", "\tFlags int32\n\tOk    bool\n")],
            expect: &["field-added Sample.Ok old=- new=`Ok    bool` affects=Batch"],
        },
        Case {
            name: "size changed",
            edits: &[("\tFlags int32", "\tFlags int16")],
            expect: &["type-changed Sample.Flags old=`int32` new=`int16` affects=Batch"],
        },
        Case {
            name: "root set changed",
            edits: &[(
                "\tNote  *string\n}\n",
                "\tNote  *string\n}\n\ntype Envelope struct {\n\tB Batch\n}\n",
            )],
            expect: &["root-changed Batch old=`Batch` new=`Batch` affects=Batch"],
        },
    ];
    check_table(
        Dialect::Ffi,
        FFI,
        FieldOrder::Declaration,
        &compatible_edits(Dialect::Ffi),
    );
    check_table(Dialect::Ffi, FFI, FieldOrder::Declaration, &cases);
}

#[test]
fn per_type_status_and_offsets() {
    // Inserting `z` before `y` in Point: Point and Line (which contains it) break; the
    // offsets per field are there for a hover.
    let new = edit(SDP, &[("    y: u32,", "    z: u16,\n    y: u32,")]);
    let (report, lines) = run(Dialect::Sdp, FieldOrder::Declaration, SDP, &new);
    assert_eq!(
        lines,
        ["field-added Point.z old=- new=`z: u16` affects=Point,Line"],
        "y keeps its rank among kept fields: not reported as reordered"
    );
    let point = report.get("Point").unwrap();
    assert_eq!(point.status, Status::Breaks);
    assert_eq!(point.broken_by, ["Point"]);
    assert!(point.is_message);
    let line = report.get("Line").unwrap();
    assert_eq!(line.status, Status::Breaks);
    assert_eq!(line.broken_by, ["Point"], "Line breaks through the struct it contains");
    let y = point.fields.iter().find(|f| f.name == "y").unwrap();
    let (o, n) = (y.old.as_ref().unwrap(), y.new.as_ref().unwrap());
    assert_eq!((o.offset, n.offset), (Some(4), Some(6)));
    assert_eq!((o.wire_index, n.wire_index), (1, 2));
    assert_eq!(&new[n.range.clone()], "y: u32");

    // Adding a struct at the end: it is new; the others stay compatible.
    let new = format!("{SDP}\nstruct Extra {{\n    v: u8,\n}}\n");
    let (report, _) = run(Dialect::Sdp, FieldOrder::Declaration, SDP, &new);
    assert_eq!(report.get("Extra").unwrap().status, Status::Added);
    assert_eq!(report.get("Point").unwrap().status, Status::Compatible);
    assert_eq!(report.get("Line").unwrap().message_id.new, Some(2));
}

#[test]
fn ffi_helper_changes_affect_only_roots() {
    let new = edit(FFI, &[("\tId    int64", "\tId    float64")]);
    let (report, lines) = run(Dialect::Ffi, FieldOrder::Canonical, FFI, &new);
    assert_eq!(
        lines,
        ["type-changed Sample.Id old=`int64` new=`float64` affects=Batch"]
    );
    let sample = report.get("Sample").unwrap();
    assert!(!sample.is_message, "Sample is a helper type in ffire");
    assert_eq!(report.get("Batch").unwrap().broken_by, ["Sample"]);
}

#[test]
fn order_setting_change_is_a_reorder() {
    let (a, b) = (
        analysis(Dialect::Ffi, FFI, FieldOrder::Declaration),
        analysis(Dialect::Ffi, FFI, FieldOrder::Canonical),
    );
    let report = compare(&a, &b);
    same_without_fields(&a, &b, &report);
    let lines: Vec<String> = report.breaks.iter().map(|x| describe(x, FFI, FFI)).collect();
    assert_eq!(
        lines,
        [
            "field-reordered Sample.Name old=`Name  string` new=`Name  string` affects=Batch",
            "field-reordered Sample.Id old=`Id    int64` new=`Id    int64` affects=Batch",
            "field-reordered Sample.Count old=`Count int32` new=`Count int32` affects=Batch",
            "field-reordered Sample.Flags old=`Flags int32` new=`Flags int32` affects=Batch",
        ]
    );
}

/// ffire wire positions are 0-based everywhere (`wire #0` in hints, hovers and the compat
/// table): a wire-break message names the same numbers as the field places it reports.
#[test]
fn ffi_break_messages_name_wire_positions_as_the_hints_do() {
    // Widening `Count` (int32 → float64) moves it into `Id`'s size class: canonical order
    // sorts by size class, then name, so fields move on the wire.
    let new = edit(FFI, &[("\tCount int32", "\tCount float64")]);
    let (report, _) = run(Dialect::Ffi, FieldOrder::Canonical, FFI, &new);
    let sample = report.get("Sample").unwrap();
    let mut checked = 0;
    for b in report.breaks.iter().filter(|b| b.kind == BreakKind::FieldReordered) {
        let field = b.field.as_deref().unwrap();
        let place = sample.fields.iter().find(|f| f.name == field).unwrap();
        let (o, n) = (place.old.as_ref().unwrap(), place.new.as_ref().unwrap());
        assert_eq!(
            b.message,
            format!(
                "field `Sample.{field}` moved from wire #{} to #{}",
                o.wire_index, n.wire_index
            )
        );
        checked += 1;
    }
    assert!(checked > 0, "{:?}", report.breaks);
    // Removal and addition say `wire #N` too, 0-based: `Id` is the first field on the wire.
    let new = edit(FFI, &[("\tId    int64\n", "")]);
    let (report, _) = run(Dialect::Ffi, FieldOrder::Canonical, FFI, &new);
    assert_eq!(
        report.breaks[0].message,
        "field `Sample.Id` was removed from wire #0: every later field moves"
    );
}
