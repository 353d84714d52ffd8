-- | Connecting to the harness's unix or loopback TCP listener through the C
-- library (GHC ships no socket package): the connected descriptor.
module Socket
  ( connectUnix
  , connectTcp
  ) where

import Data.Bits (shiftR, (.&.))
import Data.Char (isDigit)
import Data.Word (Word16, Word8)
import Foreign.C.Error (getErrno, errnoToIOError)
import Foreign.C.Types (CInt (..), CUInt (..))
import Foreign.Marshal.Alloc (allocaBytes)
import Foreign.Marshal.Utils (fillBytes, with)
import Foreign.Ptr (Ptr)
import Foreign.Storable (pokeByteOff, sizeOf)
import System.Posix.Types (Fd (..))

foreign import ccall unsafe "socket" c_socket :: CInt -> CInt -> CInt -> IO CInt
foreign import ccall safe "connect" c_connect :: CInt -> Ptr Word8 -> CUInt -> IO CInt
foreign import ccall unsafe "close" c_close :: CInt -> IO CInt
foreign import ccall unsafe "setsockopt" c_setsockopt :: CInt -> CInt -> CInt -> Ptr CInt -> CUInt -> IO CInt

afUnix, afInet, sockStream, ipprotoTcp, tcpNodelay :: CInt
afUnix = 1
afInet = 2
sockStream = 1
ipprotoTcp = 6
tcpNodelay = 1

-- | Either the connected fd or a one-line reason.
open :: CInt -> Int -> (Ptr Word8 -> IO ()) -> IO (Either String Fd)
open family len fillAddr = do
  s <- c_socket family sockStream 0
  if s < 0
    then Left <$> failure "socket"
    else allocaBytes len $ \addr -> do
      fillBytes addr 0 len
      fillAddr addr
      r <- c_connect s addr (fromIntegral len)
      if r < 0
        then do
          why <- failure "connect"
          _ <- c_close s
          return (Left why)
        else return (Right (Fd s))
  where
    failure call = do
      errno <- getErrno
      return (show (errnoToIOError call errno Nothing Nothing))

-- | sockaddr_un: family, then the NUL-terminated path (108 bytes).
connectUnix :: FilePath -> IO (Either String Fd)
connectUnix path
  | length path >= 108 = return (Left ("socket path too long: " ++ path))
  | otherwise = open afUnix 110 $ \addr -> do
      pokeByteOff addr 0 (fromIntegral afUnix :: Word16)
      mapM_ (\(i, c) -> pokeByteOff addr (2 + i) (fromIntegral (fromEnum c) :: Word8)) (zip [0 ..] path)

-- | sockaddr_in for a dotted IPv4 address, with TCP_NODELAY set.
connectTcp :: String -> Int -> IO (Either String Fd)
connectTcp host port = case dotted host of
  Nothing -> return (Left ("host " ++ host ++ " is not a dotted IPv4 address"))
  Just quad -> do
    r <- open afInet 16 $ \addr -> do
      pokeByteOff addr 0 (fromIntegral afInet :: Word16)
      pokeByteOff addr 2 (fromIntegral (port `shiftR` 8) :: Word8)
      pokeByteOff addr 3 (fromIntegral (port .&. 0xff) :: Word8)
      mapM_ (\(i, b) -> pokeByteOff addr (4 + i) b) (zip [0 ..] quad)
    case r of
      Right (Fd s) -> do
        _ <- with (1 :: CInt) $ \one ->
          c_setsockopt s ipprotoTcp tcpNodelay one (fromIntegral (sizeOf (1 :: CInt)))
        return r
      Left _ -> return r
  where
    dotted h = case splitDots h of
      parts@[_, _, _, _]
        | all (\p -> not (null p) && all isDigit p && length p <= 3 && read p <= (255 :: Int)) parts ->
            Just (map (fromIntegral . (read :: String -> Int)) parts :: [Word8])
      _ -> Nothing
    splitDots s = case break (== '.') s of
      (a, '.' : rest) -> a : splitDots rest
      (a, _) -> [a]
