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

/// A group of mutually dependent types (a strongly connected component with a cycle),
/// reported once, with one shortest cycle through its first type as the example:
/// `path[0] → path[1] → … → path[0]`.
#[derive(Debug, Clone)]
pub struct Cycle {
    pub path: Vec<TypeId>,
    /// The edge from the last type of `path` back to the first, where the cycle is reported.
    pub closing: Edge,
    /// Every type of the group, in declaration order (a superset of `path`).
    pub members: Vec<TypeId>,
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
    /// graph is acyclic), plus one [`Cycle`] per group of mutually dependent types
    /// (Tarjan's strongly connected components, iteratively). Linear in types and edges:
    /// a ring of N structs is one cycle, not one per back edge with an N-long path each.
    fn order_and_cycles(&self) -> (Vec<TypeId>, Vec<Cycle>) {
        const UNSEEN: usize = usize::MAX;
        let n = self.len();
        let mut index = vec![UNSEEN; n];
        let mut low = vec![0usize; n];
        let mut on_stack = vec![false; n];
        let mut component_stack: Vec<TypeId> = Vec::new();
        let mut counter = 0usize;
        let mut post = Vec::with_capacity(n);
        let mut cycles = Vec::new();
        // (node, next edge index); one allocation for the whole walk.
        let mut stack: Vec<(TypeId, usize)> = Vec::new();
        for start in 0..n {
            if index[start] != UNSEEN {
                continue;
            }
            stack.push((start, 0));
            index[start] = counter;
            low[start] = counter;
            counter += 1;
            component_stack.push(start);
            on_stack[start] = true;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if let Some(edge) = self.edges(node).get(*next) {
                    *next += 1;
                    let to = edge.to;
                    if index[to] == UNSEEN {
                        index[to] = counter;
                        low[to] = counter;
                        counter += 1;
                        component_stack.push(to);
                        on_stack[to] = true;
                        stack.push((to, 0));
                    } else if on_stack[to] {
                        low[node] = low[node].min(index[to]);
                    }
                    continue;
                }
                post.push(node);
                stack.pop();
                if let Some(&(parent, _)) = stack.last() {
                    low[parent] = low[parent].min(low[node]);
                }
                if low[node] == index[node] && component_stack.last() == Some(&node) {
                    // A component of one type, the usual case: found without allocating.
                    component_stack.pop();
                    on_stack[node] = false;
                    for e in self.edges(node).iter().filter(|e| e.to == node) {
                        cycles.push(Cycle {
                            path: vec![node],
                            closing: e.clone(),
                            members: vec![node],
                        });
                    }
                } else if low[node] == index[node] {
                    let at = component_stack.iter().rposition(|&t| t == node).unwrap_or(0);
                    let mut members = component_stack.split_off(at);
                    for &t in &members {
                        on_stack[t] = false;
                    }
                    members.sort_unstable();
                    // A type that mentions itself: each such reference is its own error
                    // (one per edge, so still linear).
                    for &t in &members {
                        for e in self.edges(t).iter().filter(|e| e.to == t) {
                            cycles.push(Cycle {
                                path: vec![t],
                                closing: e.clone(),
                                members: vec![t],
                            });
                        }
                    }
                    if let Some(cycle) = self.cycle_in(members) {
                        cycles.push(cycle);
                    }
                }
            }
        }
        cycles.sort_by_key(|c| (c.path[0], c.closing.range.start));
        (post, cycles)
    }

    /// The shortest cycle through two or more types from the first member back to it, if
    /// the component has more than one member (self-references are reported apart).
    /// Breadth-first within the component.
    fn cycle_in(&self, members: Vec<TypeId>) -> Option<Cycle> {
        if members.len() < 2 {
            return None;
        }
        let first = *members.first()?;
        let inside = |t: TypeId| members.binary_search(&t).is_ok();
        // parent[i]: how members[i] was reached (its predecessor), for the path back.
        let mut parent: Vec<Option<TypeId>> = vec![None; members.len()];
        let mut queue = std::collections::VecDeque::from([first]);
        let slot = |t: TypeId| members.binary_search(&t).ok();
        while let Some(t) = queue.pop_front() {
            for edge in self.edges(t).iter().filter(|e| e.to != t) {
                if edge.to == first {
                    let mut path = vec![t];
                    let mut at = t;
                    while let Some(p) = slot(at).and_then(|i| parent[i]) {
                        path.push(p);
                        at = p;
                    }
                    path.reverse();
                    return Some(Cycle {
                        path,
                        closing: edge.clone(),
                        members,
                    });
                }
                if inside(edge.to) {
                    if let Some(i) = slot(edge.to) {
                        if parent[i].is_none() {
                            parent[i] = Some(t);
                            queue.push_back(edge.to);
                        }
                    }
                }
            }
        }
        None
    }

    /// Types whose layout cannot be known: on a cycle, mentioning an undeclared name,
    /// or depending on such a type. `order` must come from [`Graph::order_and_cycles`].
    fn unresolvable(&self, order: &[TypeId], cycles: &[Cycle]) -> Vec<bool> {
        let mut bad = self.has_unknown.clone();
        for c in cycles {
            for &t in &c.members {
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
