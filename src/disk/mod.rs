//! Tables on disk: the frame format every file of tables is written in ([`frames`]) and the
//! scratch folder a count writes them to ([`scratch`]). The frontier engine's layers past the
//! memory bound (`layer::spill`) and its saved layers (`frontier::snapshot`) rest on these.

pub(crate) mod frames;
pub(crate) mod scratch;
