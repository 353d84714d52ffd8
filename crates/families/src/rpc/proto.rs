//! spec/rpc.proto's two messages, written out with prost's derive so no
//! protoc (nor a build script) is needed, and the gRPC method's path. The
//! tags and types must stay those of the .proto: the Go and Python servers
//! are generated from it.

/// `toll.rpc.v1.Payload`: the request.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Payload {
    #[prost(bytes = "bytes", tag = "1")]
    pub data: bytes::Bytes,
}

/// `toll.rpc.v1.Ack`: the reply, the payload's length as received.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Ack {
    #[prost(uint32, tag = "1")]
    pub received: u32,
}

/// The unary method every server serves.
pub const CALL_PATH: &str = "/toll.rpc.v1.Null/Call";

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn empty_messages_encode_to_nothing_as_the_spec_says() {
        assert!(Payload {
            data: bytes::Bytes::new()
        }
        .encode_to_vec()
        .is_empty());
        assert!(Ack { received: 0 }.encode_to_vec().is_empty());
    }

    #[test]
    fn fields_have_the_protos_tags() {
        // field 1, wire type 2 (length-delimited), 3 bytes.
        assert_eq!(
            Payload {
                data: vec![7u8; 3].into()
            }
            .encode_to_vec(),
            vec![0x0a, 3, 7, 7, 7]
        );
        // field 1, wire type 0 (varint), 300.
        assert_eq!(
            Ack { received: 300 }.encode_to_vec(),
            vec![0x08, 0xac, 0x02]
        );
    }
}
