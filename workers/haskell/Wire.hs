{-# LANGUAGE BangPatterns #-}

-- | The data plane of spec/wire.md: request frames in, one 24-byte reply out
-- per frame, read from a file descriptor through one buffer so a small frame
-- costs one read.
module Wire
  ( Fault (..)
  , parseFault
  , Header (..)
  , decodeHeader
  , encodeReply
  , replyLen
  , headerLen
  , decodeItems
  , serve
  ) where

import Control.Exception (IOException, try)
import Data.Bits (shiftL, shiftR, (.&.), (.|.))
import Data.Char (isDigit)
import Data.Int (Int64)
import Data.Word (Word32, Word64, Word8)
import Foreign.Marshal.Alloc (allocaBytes, free, mallocBytes)
import Foreign.Marshal.Utils (moveBytes)
import Foreign.Ptr (Ptr, plusPtr)
import Foreign.Storable (peekByteOff, pokeByteOff)
import System.Exit (ExitCode (..), exitWith)
import System.Posix.IO (fdReadBuf, fdWriteBuf)
import System.Posix.Types (Fd)

-- | TOLL_WORKER_FAULT: exit:K or garbage:K.
data Fault = NoFault | ExitAt Word64 | GarbageAt Word64
  deriving (Eq, Show)

parseFault :: String -> Fault
parseFault text = case break (== ':') text of
  ("exit", ':' : k) | number k -> ExitAt (read k)
  ("garbage", ':' : k) | number k -> GarbageAt (read k)
  _ -> NoFault
  where
    number k = not (null k) && all isDigit k && length k < 20

headerLen, replyLen, bufLen :: Int
headerLen = 16
replyLen = 24
bufLen = 256 * 1024

requestMagic, replyMagic :: Word32
requestMagic = 0x4C4C4F54 -- "TOLL"
replyMagic = 0x524C4F54 -- "TOLR"

kindData, kindEnd :: Word32
kindData = 1
kindEnd = 2

-- | A decoded request header.
data Header = Header
  { hMagicOk :: !Bool
  , hKind :: !Word32
  , hSeq :: !Word32
  , hCount :: !Word32
  }
  deriving (Eq, Show)

le32 :: Ptr Word8 -> Int -> IO Word32
le32 p off = do
  b0 <- peekByteOff p off :: IO Word8
  b1 <- peekByteOff p (off + 1) :: IO Word8
  b2 <- peekByteOff p (off + 2) :: IO Word8
  b3 <- peekByteOff p (off + 3) :: IO Word8
  return $!
    fromIntegral b0
      .|. (fromIntegral b1 `shiftL` 8)
      .|. (fromIntegral b2 `shiftL` 16)
      .|. (fromIntegral b3 `shiftL` 24)

putLe :: Ptr Word8 -> Int -> Int -> Word64 -> IO ()
putLe p off width v =
  mapM_ (\i -> pokeByteOff p (off + i) (fromIntegral (v `shiftR` (8 * i) .&. 0xff) :: Word8)) [0 .. width - 1]

decodeHeader :: Ptr Word8 -> Int -> IO Header
decodeHeader p off = do
  magic <- le32 p off
  kind <- le32 p (off + 4)
  sq <- le32 p (off + 8)
  count <- le32 p (off + 12)
  return (Header (magic == requestMagic) kind sq count)

-- | The `count` signed items that follow a header at p + off.
decodeItems :: Ptr Word8 -> Int -> Int -> IO [Int64]
decodeItems p off count = mapM item [0 .. count - 1]
  where
    item i = signed <$> le32 p (off + 4 * i)

signed :: Word32 -> Int64
signed w = if w >= 0x80000000 then fromIntegral w - 0x100000000 else fromIntegral w

-- | Writes a 24-byte reply at p.
encodeReply :: Ptr Word8 -> Word32 -> Word32 -> Word32 -> Int64 -> IO ()
encodeReply p status sq count total = do
  putLe p 0 4 (fromIntegral replyMagic)
  putLe p 4 4 (fromIntegral status)
  putLe p 8 4 (fromIntegral sq)
  putLe p 12 4 (fromIntegral count)
  putLe p 16 8 (fromIntegral total)

writeAll :: Fd -> Ptr Word8 -> Int -> IO ()
writeAll fd p len
  | len <= 0 = return ()
  | otherwise = do
      n <- fromIntegral <$> fdWriteBuf fd p (fromIntegral len)
      writeAll fd (p `plusPtr` n) (len - n)

-- | The buffer's unconsumed bytes lie in [start, end).
data Buf = Buf {bPtr :: !(Ptr Word8), bStart :: !Int, bEnd :: !Int}

-- | Reads more, keeping what is unconsumed; Nothing at end of stream.
fill :: Fd -> Buf -> IO (Maybe Buf)
fill fd (Buf p s e) = do
  let kept = e - s
  if s > 0 then moveBytes p (p `plusPtr` s) kept else return ()
  n <- fromIntegral <$> fdReadBuf fd (p `plusPtr` kept) (fromIntegral (bufLen - kept))
  return (if n == 0 then Nothing else Just (Buf p 0 (kept + n)))

-- | Makes at least k bytes available.
need :: Fd -> Int -> Buf -> IO (Either String Buf)
need fd k b
  | bEnd b - bStart b >= k = return (Right b)
  | otherwise =
      fill fd b >>= maybe (return (Left "data channel closed before the END frame")) (need fd k)

-- | Sums `count` little-endian i32 items as they stream through the buffer.
sumItems :: Fd -> Word64 -> Buf -> IO (Either String (Int64, Buf))
sumItems fd count0 b0 = go count0 0 b0
  where
    go 0 !acc b = return (Right (acc, b))
    go left !acc b = do
      let whole = min left (fromIntegral ((bEnd b - bStart b) `div` 4))
      if whole == 0
        then need fd 4 b >>= either (return . Left) (go left acc)
        else do
          acc' <- add (bPtr b) (bStart b) (bStart b + 4 * fromIntegral whole) acc
          go (left - whole) acc' b {bStart = bStart b + 4 * fromIntegral whole}
    add p i stop !acc
      | i >= stop = return acc
      | otherwise = do
          w <- le32 p i
          add p (i + 4) stop (acc + signed w)

-- | Answers request frames from `inFd` on `outFd` until END or a bad frame;
-- the DATA frames served and the items received, or why it stopped early.
serve :: Fault -> Fd -> Fd -> IO (Either String (Word64, Word64))
serve fault inFd outFd = do
  buf <- mallocBytes bufLen
  r <- try (allocaBytes replyLen (loop (Buf buf 0 0) 0 0 0))
  free buf
  return $ case r of
    Left e -> Left (show (e :: IOException))
    Right x -> x
  where
    loop b expected !frames !items reply = do
      got <- need inFd headerLen b
      case got of
        Left why -> return (Left why)
        Right b1 -> do
          h <- decodeHeader (bPtr b1) (bStart b1)
          let b2 = b1 {bStart = bStart b1 + headerLen}
              answer status count total = do
                encodeReply reply status (hSeq h) count total
                writeAll outFd reply replyLen
          if not (hMagicOk h) || (hKind h /= kindData && hKind h /= kindEnd) || hSeq h /= expected
            then answer 1 0 0 >> return (Right (frames, items))
            else
              if hKind h == kindEnd
                then answer 0 0 0 >> return (Right (frames, items))
                else do
                  let count = fromIntegral (hCount h) :: Word64
                  case fault of
                    ExitAt k | count >= k -> exitWith (ExitFailure 3)
                    _ -> return ()
                  summed <- sumItems inFd count b2
                  case summed of
                    Left why -> return (Left why)
                    Right (total, b3) -> do
                      case fault of
                        GarbageAt k
                          | count >= k ->
                              mapM_ (\i -> pokeByteOff reply i (0xAB :: Word8)) [0 .. replyLen - 1]
                                >> writeAll outFd reply replyLen
                        _ -> answer 0 (hCount h) total
                      loop b3 (expected + 1) (frames + 1) (items + count) reply
