//! The type reference graph: which declared types each type mentions. Walked
//! iteratively (no recursion), so a hostile 100,000-deep chain of structs cannot
//! overflow the stack of the language server.

use std::ops::Range;

use crate::model::{Schema, TypeId, TypeKind};

/// One edge: type `from` mentions `to` at `range` (a field's type or an alias target).
#[derive(Debug, Clone)]
pub struct Edge {
    pub to: TypeId,
    pub range: Range<usize>,
    /// Index of the field that holds the reference, `None` for an alias target.
    pub field: Option<usize>,
}

pub struct Graph {
    /// Every type's edges, type after type (one allocation, not one per type); see
    /// [`Graph::edges`].
    all_edges: Vec<Edge>,
    /// Where each type's edges start in `all_edges`, plus the end.
    starts: Vec<usize>,
    /// Types that mention a name that is not declared.
    pub has_unknown: Vec<bool>,
    /// Every type in dependency order, and the cycles: see [`Graph::order_and_cycles`].
    pub order: Vec<TypeId>,
    pub cycles: Vec<Cycle>,
    /// See [`Graph::unresolvable`].
    pub unresolvable: Vec<bool>,
}

/// A cycle, as the edges that close it: `path[0] → path[1] → … → path[0]`.
#[derive(Debug, Clone)]
pub struct Cycle {
    pub path: Vec<TypeId>,
    /// The edge from the last type back to the first, where the cycle is reported.
    pub closing: Edge,
}

impl Graph {
    pub fn new(schema: &Schema) -> Graph {
        let mut out = Vec::new();
        let mut starts = Vec::with_capacity(schema.types.len() + 1);
        let mut has_unknown = Vec::with_capacity(schema.types.len());
        for def in &schema.types {
            starts.push(out.len());
            let mut unknown = false;
            let mut add = |ty: &crate::model::TypeExpr, field: Option<usize>| match ty.named_ref() {
                Some((_, Some(to), range)) => out.push(Edge { to, range, field }),
                Some((_, None, _)) => unknown = true,
                None => {}
            };
            match &def.kind {
                TypeKind::Struct { fields, .. } => fields.iter().enumerate().for_each(|(i, f)| add(&f.ty, Some(i))),
                TypeKind::Alias { target, .. } => add(target, None),
            }
            has_unknown.push(unknown);
        }
        starts.push(out.len());
        let mut graph = Graph {
            all_edges: out,
            starts,
            has_unknown,
            order: Vec::new(),
            cycles: Vec::new(),
            unresolvable: Vec::new(),
        };
        (graph.order, graph.cycles) = graph.order_and_cycles();
        graph.unresolvable = graph.unresolvable(&graph.order, &graph.cycles);
        graph
    }

    /// The number of types.
    pub fn len(&self) -> usize {
        self.has_unknown.len()
    }

    pub fn is_empty(&self) -> bool {
        self.has_unknown.is_empty()
    }

    /// The references type `t` makes, in declaration order.
    pub fn edges(&self, t: TypeId) -> &[Edge] {
        match (self.starts.get(t), self.starts.get(t + 1)) {
            (Some(&a), Some(&b)) => &self.all_edges[a..b],
            _ => &[],
        }
    }

    /// Every type in dependency order (a type after everything it mentions, where the
    /// graph is acyclic), plus the cycles closed by each back edge of a depth-first walk
    /// (every group of mutually dependent types yields at least one).
    fn order_and_cycles(&self) -> (Vec<TypeId>, Vec<Cycle>) {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            OnStack,
            Done,
        }
        let n = self.len();
        let mut mark = vec![Mark::New; n];
        let mut post = Vec::with_capacity(n);
        let mut cycles = Vec::new();
        for start in 0..n {
            if mark[start] != Mark::New {
                continue;
            }
            // (node, next edge index)
            let mut stack: Vec<(TypeId, usize)> = vec![(start, 0)];
            mark[start] = Mark::OnStack;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if let Some(edge) = self.edges(node).get(*next) {
                    *next += 1;
                    match mark[edge.to] {
                        Mark::New => {
                            mark[edge.to] = Mark::OnStack;
                            stack.push((edge.to, 0));
                        }
                        Mark::OnStack => {
                            // A back edge: each one closes a cycle of its own.
                            let from = stack.iter().position(|&(t, _)| t == edge.to).unwrap_or(0);
                            let path: Vec<TypeId> = stack[from..].iter().map(|&(t, _)| t).collect();
                            cycles.push(Cycle {
                                path,
                                closing: edge.clone(),
                            });
                        }
                        _ => {}
                    }
                } else {
                    mark[node] = Mark::Done;
                    post.push(node);
                    stack.pop();
                }
            }
        }
        (post, cycles)
    }

    /// Types whose layout cannot be known: on a cycle, mentioning an undeclared name,
    /// or depending on such a type. `order` must come from [`Graph::order_and_cycles`].
    fn unresolvable(&self, order: &[TypeId], cycles: &[Cycle]) -> Vec<bool> {
        let mut bad = self.has_unknown.clone();
        for c in cycles {
            for &t in &c.path {
                bad[t] = true;
            }
        }
        // Dependents of a cycle: in post-order a cycle member can precede its
        // dependency, so iterate to a fixed point.
        loop {
            let mut changed = false;
            for &t in order {
                if !bad[t] && self.edges(t).iter().any(|e| bad[e.to]) {
                    bad[t] = true;
                    changed = true;
                }
            }
            if !changed {
                return bad;
            }
        }
    }
}
